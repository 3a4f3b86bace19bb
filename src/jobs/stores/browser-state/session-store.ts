/**
 * Why a browser session ended: its `ttl`, its `activityTtl` (idle), a DELETE, a failure, its process stopping,
 * its browser dying (`crashed`), or its browser outgrowing MAX_SESSION_MEMORY_MB (`memory`).
 */
export type SessionEndCause = 'ttl' | 'idle' | 'deleted' | 'error' | 'shutdown' | 'crashed' | 'memory';

/**
 * A browser session as the store keeps it, so that every API process of a fleet can list it and say which
 * process holds its browser. Times in ms since the epoch; `ttl` and `activityTtl` in seconds, as asked.
 */
export interface SessionRecord {
  id: string;
  status: 'active' | 'destroyed';
  createdAt: number;
  /** `createdAt + ttl`: the session ends then whatever it does. */
  expiresAt: number;
  /** The last CDP message or command (written at most every few seconds). */
  lastActivity: number;
  ttl: number;
  activityTtl: number;
  /** The process that holds the browser: `host:pid` and an id of that process's life. */
  holder: string;
  /** Where the fleet reaches that process (ADVERTISE_URL); null or absent: nowhere (one process, no FLEET_SECRET). */
  holderUrl?: string | null;
  /** The holder's last heartbeat (a fleet's holders beat every few seconds); absent: it beats none. */
  aliveAt?: number;
  /** The tenant that created it (records written before tenants were recorded have none: `default`). */
  owner?: string;
  /** The profile the session started from, by name (never its cookies); null without one. */
  profile: string | null;
  endedAt: number | null;
  endCause: SessionEndCause | null;
  /** What the cause was made of (Chromium's exit, the memory it used); absent on older records. */
  endDetail?: string | null;
  /** When the store may drop the record (a while after the session ended or should have). */
  keepUntil: number;
}

/**
 * The records of browser sessions beside the jobs: the SQLite file, Redis, or memory. Contract (one suite runs
 * against each adapter): `put` replaces what the id held; `get` answers the newest `put`, or null; `list`
 * answers the records with `status` (every one without), newest first; `purge(now)` drops records whose
 * `keepUntil` is past (Redis lets them expire on its own).
 */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | null>;
  put(record: SessionRecord): Promise<void>;
  list(status?: SessionRecord['status']): Promise<SessionRecord[]>;
  purge(now: number): Promise<number>;
}

/** Newest first, then by id: the order every adapter lists in. */
export const byNewest = (a: SessionRecord, b: SessionRecord): number =>
  b.createdAt - a.createdAt || a.id.localeCompare(b.id);

/** A process's own session records (tests, and a process without its job store's file). */
export class MemorySessionStore implements SessionStore {
  private readonly records = new Map<string, SessionRecord>();

  get(id: string): Promise<SessionRecord | null> {
    const record = this.records.get(id);
    return Promise.resolve(record ? { ...record } : null);
  }

  put(record: SessionRecord): Promise<void> {
    this.records.set(record.id, { ...record });
    return Promise.resolve();
  }

  list(status?: SessionRecord['status']): Promise<SessionRecord[]> {
    const all = [...this.records.values()].filter((r) => status === undefined || r.status === status);
    return Promise.resolve(all.map((r) => ({ ...r })).sort(byNewest));
  }

  purge(now: number): Promise<number> {
    let dropped = 0;
    for (const [id, record] of this.records) {
      if (record.keepUntil > now) continue;
      this.records.delete(id);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}
