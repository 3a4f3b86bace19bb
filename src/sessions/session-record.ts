import { NotFoundError, SessionEndedError } from '../errors.js';
import type { AppError } from '../errors.js';
import type {
  SessionEndCause,
  SessionRecord,
  SessionStore,
} from '../jobs/stores/browser-state/session-store.js';
import type { Logger } from '../lib/logger.js';

/** How long an ended session's record stays listed (`?status=destroyed`). */
const RETAIN_MS = 24 * 3_600_000;
/** A holder that has not ended its session this long after its `ttl` is gone: the record says so. */
const ORPHAN_GRACE_MS = 60_000;
/** How often a holder in a fleet says its sessions are alive (`aliveAt`). */
export const HEARTBEAT_MS = 5_000;
/** A holder silent this long (three heartbeats missed) is gone, its sessions ended, as every process shows them. */
const HOLDER_SILENT_MS = 3 * HEARTBEAT_MS + 1_000;

/** A new session's record, active from `now`. */
export function activeRecord(
  id: string,
  spec: {
    ttl: number;
    activityTtl: number;
    holder: string;
    holderUrl: string | null;
    owner: string;
    profile: string | null;
  },
  now: number,
): SessionRecord {
  return {
    id,
    status: 'active',
    createdAt: now,
    expiresAt: now + spec.ttl * 1000,
    lastActivity: now,
    ttl: spec.ttl,
    activityTtl: spec.activityTtl,
    holder: spec.holder,
    holderUrl: spec.holderUrl,
    ...(spec.holderUrl ? { aliveAt: now } : {}),
    owner: spec.owner,
    profile: spec.profile,
    endedAt: null,
    endCause: null,
    endDetail: null,
    keepUntil: now + spec.ttl * 1000 + RETAIN_MS,
  };
}

/** The record of a session that ended at `now`. */
export function endedRecord(
  record: SessionRecord,
  cause: SessionEndCause,
  detail: string | null,
  now: number,
): SessionRecord {
  return {
    ...record,
    status: 'destroyed',
    endedAt: now,
    endCause: cause,
    endDetail: detail,
    keepUntil: now + RETAIN_MS,
  };
}

/**
 * A record as it is shown: active records whose holder is gone show ended. `holder` is this process; `live`, the
 * record of the session if this process holds it. A record of this process's holder it does not hold was left
 * by an error; another holder's is gone when it stopped its heartbeat (a fleet's), or once ORPHAN_GRACE_MS
 * passed its `ttl`.
 */
export function shownRecord(
  record: SessionRecord,
  holder: string,
  live: SessionRecord | undefined,
  now: number,
): SessionRecord {
  if (record.status !== 'active') return record;
  const ours = record.holder === holder;
  if (ours && live) return { ...live };
  if (!ours && record.aliveAt !== undefined && now - record.aliveAt > HOLDER_SILENT_MS) {
    const detail = `its process ${record.holder} stopped answering`;
    return {
      ...record,
      status: 'destroyed',
      endedAt: record.aliveAt,
      endCause: 'crashed',
      endDetail: detail,
    };
  }
  if (!ours && now < record.expiresAt + ORPHAN_GRACE_MS) return record;
  return {
    ...record,
    status: 'destroyed',
    endedAt: Math.min(now, record.expiresAt),
    endCause: ours ? 'error' : 'ttl',
  };
}

/** The answer to a call on an ended session: when it ended and why. */
export function endedError(record: SessionRecord): SessionEndedError {
  const when = record.endedAt ? ` at ${new Date(record.endedAt).toISOString()}` : '';
  const why = [record.endCause ?? 'ending', record.endDetail].filter(Boolean).join(': ');
  return new SessionEndedError(`Browser session ${record.id} ended${when} (${why})`);
}

/**
 * Ends the record of a session whose holder is gone: it no longer answers at `holderUrl`, or that address is
 * another life's. Only a record still active at that address is ended; the answer is the ended session's
 * error either way.
 */
export async function endLost(
  store: SessionStore,
  id: string,
  holderUrl: string,
  why: string,
  log: Logger,
): Promise<AppError> {
  const record = await store.get(id);
  if (!record) return new NotFoundError(`Browser session ${id} not found`);
  if (record.status !== 'active' || record.holderUrl !== holderUrl) return endedError(record);
  const ended = endedRecord(record, 'crashed', why, Date.now());
  await store.put(ended);
  log.warn({ session: id, holder: record.holder }, `browser session ended: ${why}`);
  return endedError(ended);
}
