import { StoreUnavailableError } from '../../../errors.js';
/** How a check's pages compared with their retained predecessors. */
export interface CheckSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

/**
 * A monitor as the store keeps it. `config` is the monitor's definition as its surface stores it (targets,
 * webhook, goal, judge...; JSON, opaque to the store); the schedule is kept normalized (`cron`, 5 or 6 fields, in
 * `timezone`), and `nextRunAt` is the next tick the embedded scheduler fires (null while paused).
 * Times are ms since the epoch.
 */
export interface MonitorRecord {
  id: string;
  /** The caller that created it (`req.tenant`), whose MAX_MONITORS_PER_TENANT it counts against. */
  owner: string;
  name: string;
  status: 'active' | 'paused';
  config: Record<string, unknown>;
  cron: string;
  timezone: string;
  nextRunAt: number | null;
  lastRunAt: number | null;
  currentCheckId: string | null;
  lastCheckSummary: CheckSummary | null;
  /** Checks older than this many days are purged. */
  retentionDays: number;
  createdAt: number;
  updatedAt: number;
}

export type CheckStatus = 'queued' | 'running' | 'completed' | 'failed' | 'partial' | 'skipped_overlap';

/** One check of a monitor: every target fetched and each page compared with its predecessor. */
export interface CheckRecord {
  id: string;
  monitorId: string;
  status: CheckStatus;
  trigger: 'scheduled' | 'manual';
  scheduledFor: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  summary: CheckSummary;
  /** Per target: what it did (opaque JSON). */
  targetResults: unknown[];
  /** What happened to the notifications (webhook delivered, email not available...; opaque JSON). */
  notificationStatus: unknown;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export type PageStatus = 'same' | 'new' | 'changed' | 'removed' | 'error';

/** One page of a check, with its diff and judgment (`detail`: opaque JSON the surface shapes). */
export interface CheckPage {
  id: string;
  checkId: string;
  targetId: string;
  url: string;
  status: PageStatus;
  detail: Record<string, unknown>;
  createdAt: number;
}

/** The retained version of a page a monitor compares the next check with. */
export interface Snapshot {
  /** The page's Markdown as compared (bounded by the caller). */
  markdown: string;
  /** The scrape that produced it. */
  scrapeId: string;
  at: number;
}

/**
 * Monitors, their checks and the pages' retained versions: in the SQLite file, Redis or memory (one contract
 * suite runs against each adapter). Contract:
 * - `put` replaces the monitor with that id (create); `get` answers the newest `put` or null; `replaceIf` is a
 *   compare-and-set of the whole record, under which `updateMonitor` changes only the fields a writer names;
 *   `list(owner)` answers that owner's monitors (every owner's with null) oldest first from `offset`, at most
 *   `limit`, with the total of that selection.
 * - `delete` removes the monitor with its checks, their pages and its snapshots; false when it did not exist
 *   (checks, pages and snapshots written under its id after all are removed all the same).
 * - `count(owner)`: how many monitors `owner` holds now (a monitor stored without an owner is `default`'s).
 * - `due(now)`: active monitors whose `nextRunAt` is at or before `now`. `advance(id, from, to)` sets `nextRunAt`
 *   to `to` only if it is still `from` (compare-and-set), answering whether it did: of several processes seeing
 *   the same tick due, exactly one advances it and fires.
 * - checks: `putCheck` creates or replaces; `checks` lists a monitor's checks newest first (optionally one
 *   status), from `offset`, at most `limit`, with the total; `check` reads one of that monitor's (null otherwise).
 * - pages: `addPages` appends a check's pages in order; `pages` reads from `skip`, at most `limit`, optionally one
 *   status, with the total of that selection.
 * - snapshots by (monitor, key): `snapshot` reads, `putSnapshot` replaces, `deleteSnapshot` removes;
 *   `snapshotKeys(monitorId, prefix)` lists the keys starting with `prefix` (a target's pages, for `removed`).
 * - `purgeChecks(monitorId, before)` deletes the monitor's checks created before `before`, with their pages;
 *   answers how many checks went.
 */
export interface MonitorStore {
  get(id: string): Promise<MonitorRecord | null>;
  put(monitor: MonitorRecord): Promise<void>;
  /** Replaces the monitor with `next` only if it is still exactly `expected` (compare-and-set); whether it did. */
  replaceIf(expected: MonitorRecord, next: MonitorRecord): Promise<boolean>;
  list(
    owner: string | null,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }>;
  count(owner: string): Promise<number>;
  delete(id: string): Promise<boolean>;
  due(now: number): Promise<MonitorRecord[]>;
  advance(id: string, from: number, to: number | null): Promise<boolean>;
  putCheck(check: CheckRecord): Promise<void>;
  check(monitorId: string, checkId: string): Promise<CheckRecord | null>;
  checks(
    monitorId: string,
    offset: number,
    limit: number,
    status?: CheckStatus,
  ): Promise<{ checks: CheckRecord[]; total: number }>;
  addPages(checkId: string, pages: CheckPage[]): Promise<void>;
  pages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: CheckPage[]; total: number }>;
  snapshot(monitorId: string, key: string): Promise<Snapshot | null>;
  putSnapshot(monitorId: string, key: string, snapshot: Snapshot): Promise<void>;
  deleteSnapshot(monitorId: string, key: string): Promise<void>;
  snapshotKeys(monitorId: string, prefix: string): Promise<string[]>;
  purgeChecks(monitorId: string, before: number): Promise<number>;
}

/** Attempts of a field-level update against writers changing other fields of the same monitor at once. */
const UPDATE_ATTEMPTS = 20;

/**
 * Changes the fields `change` answers for the monitor as it is stored now (null: nothing to change), by
 * compare-and-set: a PATCH and a check finishing together each keep their own fields, and neither overwrites
 * the other's with what it read before. Answers the record written (null when the monitor is gone).
 */
export async function updateMonitor(
  store: MonitorStore,
  id: string,
  change: (monitor: MonitorRecord) => Partial<MonitorRecord> | null,
): Promise<MonitorRecord | null> {
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await store.get(id);
    if (!current) return null;
    const fields = change(current);
    if (fields === null) return current;
    const next = { ...current, ...fields, id: current.id, owner: current.owner };
    if (await store.replaceIf(current, next)) return next;
  }
  throw new StoreUnavailableError(`Monitor ${id} changed ${UPDATE_ATTEMPTS} times while being updated`);
}
