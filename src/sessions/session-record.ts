import type { SessionEndCause, SessionRecord } from '../jobs/stores/browser-state/session-store.js';

/** How long an ended session's record stays listed (`?status=destroyed`). */
const RETAIN_MS = 24 * 3_600_000;
/** A holder that has not ended its session this long after its `ttl` is gone: the record says so. */
const ORPHAN_GRACE_MS = 60_000;

/** A new session's record, active from `now`. */
export function activeRecord(
  id: string,
  spec: { ttl: number; activityTtl: number; holder: string; owner: string; profile: string | null },
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
 * by an error; another holder's is gone once ORPHAN_GRACE_MS passed its `ttl`.
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
  if (!ours && now < record.expiresAt + ORPHAN_GRACE_MS) return record;
  return {
    ...record,
    status: 'destroyed',
    endedAt: Math.min(now, record.expiresAt),
    endCause: ours ? 'error' : 'ttl',
  };
}
