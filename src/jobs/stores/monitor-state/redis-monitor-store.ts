import type { ChainableCommander, Redis } from 'ioredis';
import type {
  CheckPage,
  CheckRecord,
  CheckStatus,
  MonitorRecord,
  MonitorStore,
  PageStatus,
  Snapshot,
} from './monitor-store.js';
import { storeCall } from '../sqlite.js';

const CHECK_STATUSES: readonly CheckStatus[] = [
  'queued',
  'running',
  'completed',
  'failed',
  'partial',
  'skipped_overlap',
];
const PAGE_STATUSES: readonly PageStatus[] = ['same', 'new', 'changed', 'removed', 'error'];

/** How many checks one round of `delete`/`purgeChecks` drops, and how many pages one `addPages` script adds. */
const CHUNK = 200;

/**
 * Keys (prefix `pw:`). A monitor is a hash: its record as JSON in `body`, with `status` and `nextRunAt` beside it
 * so that `advance` compares and sets the tick in Lua without re-encoding the caller's JSON. Its checks are
 * indexed by creation time in one sorted set, and in one per status (so a status filter reads only its own); a
 * check's pages are a hash by position (0, 1, …) with a list of positions per status.
 */
const k = {
  monitor: (id: string) => `pw:monitor:${id}`,
  checks: (id: string) => `pw:monitor:${id}:checks`,
  checksOf: (id: string, status: CheckStatus) => `pw:monitor:${id}:checks:${status}`,
  snapshots: (id: string) => `pw:monitor:${id}:snapshots`,
  check: (checkId: string) => `pw:monitor-check:${checkId}`,
  pages: (checkId: string) => `pw:monitor-check:${checkId}:pages`,
  pagesOf: (checkId: string, status: PageStatus) => `pw:monitor-check:${checkId}:pages:${status}`,
  /** Every monitor by creation time. */
  all: 'pw:monitors',
  /** The ids of one owner's monitors. */
  owned: (owner: string) => `pw:monitors:owner:${owner}`,
  /** Set once every monitor stored without its owner's set holding it has been added there. */
  ownersIndexed: 'pw:monitors:owners-indexed',
  /** Active monitors with a next tick, by that tick. */
  due: 'pw:monitors:due',
};

const checkKeys = (checkId: string): string[] => [
  k.check(checkId),
  k.pages(checkId),
  ...PAGE_STATUSES.map((s) => k.pagesOf(checkId, s)),
];

/** Sets the next tick only if it is still ARGV[2]. KEYS: monitor, due. ARGV: id, from, to ('' for none). */
const ADVANCE = `
if redis.call('HGET', KEYS[1], 'nextRunAt') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'nextRunAt', ARGV[3])
if ARGV[3] ~= '' and redis.call('HGET', KEYS[1], 'status') == 'active' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
else
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1`;

/**
 * Replaces a monitor if its hash still holds the body and tick read (compare-and-set). KEYS: the monitor, due.
 * ARGV: id, expected body, expected nextRunAt, new body, new status, new nextRunAt ('' for none).
 */
const REPLACE_IF = `
if redis.call('HGET', KEYS[1], 'body') ~= ARGV[2] or redis.call('HGET', KEYS[1], 'nextRunAt') ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], 'body', ARGV[4], 'status', ARGV[5], 'nextRunAt', ARGV[6])
if ARGV[6] ~= '' and ARGV[5] == 'active' then
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
else
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1`;

/**
 * Appends pages after those held, atomically. KEYS: pages, then the status lists in PAGE_STATUSES order.
 * ARGV: pairs of (status index, page JSON).
 */
const ADD_PAGES = `
local n = redis.call('HLEN', KEYS[1])
for i = 1, #ARGV, 2 do
  local seq = tostring(n + (i - 1) / 2)
  redis.call('HSET', KEYS[1], seq, ARGV[i + 1])
  redis.call('RPUSH', KEYS[2 + tonumber(ARGV[i])], seq)
end
return n`;

/** `text` matched literally by a Redis glob pattern. */
const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The owner of a monitor stored without one. */
const NO_OWNER = 'default';

function toMonitor(h: Record<string, string>): MonitorRecord | null {
  if (h.body === undefined) return null;
  const monitor = JSON.parse(h.body) as MonitorRecord;
  monitor.nextRunAt = h.nextRunAt ? Number(h.nextRunAt) : null;
  monitor.owner ??= NO_OWNER;
  return monitor;
}

/** Runs a MULTI or pipeline, failing with the first command's error (ioredis answers them as values). */
async function run(batch: ChainableCommander): Promise<unknown[]> {
  const replies = (await batch.exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  return replies.map(([, value]) => value);
}

const parsed = <T>(raws: (string | null)[]): T[] =>
  raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as T);

/** `from`, `from + 1`, … below `end`. */
const range = (from: number, end: number): number[] =>
  Array.from({ length: Math.max(0, end - from) }, (_, i) => from + i);

/**
 * The MonitorStore on Redis (REDIS_URL), shared by the fleet. Every read is bounded by its `limit` (status filters
 * read their own index, never the other checks or pages); `delete` and `purgeChecks` drop checks CHUNK at a time.
 * `delete` first removes the monitor itself (gone for every reader at once), then its checks and snapshots: if the
 * process stops in between, another `delete` of the same id finishes the clean-up.
 */
export class RedisMonitorStore implements MonitorStore {
  private ownersIndexed: Promise<void> | null = null;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('pwMonitorAdvance', { numberOfKeys: 2, lua: ADVANCE });
    redis.defineCommand('pwMonitorReplaceIf', { numberOfKeys: 2, lua: REPLACE_IF });
    redis.defineCommand('pwMonitorAddPages', { numberOfKeys: 1 + PAGE_STATUSES.length, lua: ADD_PAGES });
  }

  /** Every failure of Redis reaches callers as the store's 503 with the reason. */
  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  private cmd(name: string, ...args: string[]): Promise<unknown> {
    return (this.redis as unknown as Record<string, (...a: string[]) => Promise<unknown>>)[name]!(...args);
  }

  private async monitors(ids: string[]): Promise<MonitorRecord[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(k.monitor(id));
    return (await run(pipeline))
      .map((h) => toMonitor(h as Record<string, string>))
      .filter((m): m is MonitorRecord => m !== null);
  }

  get(id: string): Promise<MonitorRecord | null> {
    return this.call(async () => toMonitor(await this.redis.hgetall(k.monitor(id))));
  }

  put(m: MonitorRecord): Promise<void> {
    return this.call(async () => {
      const multi = this.redis
        .multi()
        .hset(k.monitor(m.id), {
          body: JSON.stringify(m),
          status: m.status,
          nextRunAt: m.nextRunAt === null ? '' : String(m.nextRunAt),
        })
        .zadd(k.all, m.createdAt, m.id)
        .sadd(k.owned(m.owner), m.id);
      if (m.status === 'active' && m.nextRunAt !== null) multi.zadd(k.due, m.nextRunAt, m.id);
      else multi.zrem(k.due, m.id);
      await run(multi);
    });
  }

  list(
    owner: string | null,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }> {
    return this.call(async () => {
      if (owner !== null) return this.listOf(owner, offset, limit);
      const ids = limit > 0 ? await this.redis.zrange(k.all, offset, offset + limit - 1) : [];
      return { monitors: await this.monitors(ids), total: await this.redis.zcard(k.all) };
    });
  }

  /**
   * One owner's monitors in creation order: its set's members ordered by their place in `pw:monitors` (a
   * tenant holds at most its MAX_MONITORS_PER_TENANT, so reading all of its ids stays bounded).
   */
  private async listOf(
    owner: string,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }> {
    await this.indexOwners();
    const ids = await this.redis.smembers(k.owned(owner));
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.zscore(k.all, id);
    const scores = await run(pipeline);
    const held = ids
      .map((id, i) => ({ id, at: scores[i] === null ? null : Number(scores[i]) }))
      .filter((m): m is { id: string; at: number } => m.at !== null)
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = held.slice(offset, offset + Math.max(0, limit)).map((m) => m.id);
    return { monitors: await this.monitors(page), total: held.length };
  }

  /**
   * The members of the owner's set that are still stored (a monitor deleted while the set was being built is
   * dropped from it here), so a count never holds a slot for a monitor that is gone.
   */
  count(owner: string): Promise<number> {
    return this.call(async () => {
      await this.indexOwners();
      const ids = await this.redis.smembers(k.owned(owner));
      if (ids.length === 0) return 0;
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.exists(k.monitor(id));
      const exists = await run(pipeline);
      const stale = ids.filter((_, i) => exists[i] === 0);
      if (stale.length > 0) await this.redis.srem(k.owned(owner), ...stale);
      return ids.length - stale.length;
    });
  }

  /** Adds every stored monitor to its owner's set, once per store (those written without one are missing). */
  private indexOwners(): Promise<void> {
    this.ownersIndexed ??= (async () => {
      if ((await this.redis.exists(k.ownersIndexed)) === 1) return;
      for (let at = 0; ; at += CHUNK) {
        const ids = await this.redis.zrange(k.all, at, at + CHUNK - 1);
        if (ids.length === 0) break;
        const pipeline = this.redis.pipeline();
        for (const m of await this.monitors(ids)) pipeline.sadd(k.owned(m.owner), m.id);
        await run(pipeline);
      }
      await this.redis.set(k.ownersIndexed, '1');
    })();
    this.ownersIndexed.catch(() => (this.ownersIndexed = null));
    return this.ownersIndexed;
  }

  delete(id: string): Promise<boolean> {
    return this.call(async () => {
      const owner = (await this.get(id))?.owner;
      const multi = this.redis.multi().del(k.monitor(id)).zrem(k.all, id).zrem(k.due, id);
      if (owner !== undefined) multi.srem(k.owned(owner), id);
      const [removed] = await run(multi);
      const existed = removed === 1;
      for (;;) {
        const checkIds = await this.redis.zrange(k.checks(id), 0, CHUNK - 1);
        if (checkIds.length === 0) break;
        await this.dropChecks(id, checkIds);
      }
      await this.redis.unlink(k.checks(id), ...CHECK_STATUSES.map((s) => k.checksOf(id, s)), k.snapshots(id));
      return existed;
    });
  }

  due(now: number): Promise<MonitorRecord[]> {
    return this.call(async () => {
      const monitors = await this.monitors(await this.redis.zrangebyscore(k.due, '-inf', now));
      return monitors.filter((m) => m.status === 'active' && m.nextRunAt !== null && m.nextRunAt <= now);
    });
  }

  replaceIf(expected: MonitorRecord, next: MonitorRecord): Promise<boolean> {
    return this.call(async () => {
      // The raw hash as read, for the script to compare: `advance` changes its tick without its body.
      const raw = await this.redis.hgetall(k.monitor(expected.id));
      const current = toMonitor(raw);
      if (!current || JSON.stringify(current) !== JSON.stringify(expected)) return false;
      const done = await this.cmd(
        'pwMonitorReplaceIf',
        k.monitor(expected.id),
        k.due,
        expected.id,
        raw.body!,
        raw.nextRunAt ?? '',
        JSON.stringify(next),
        next.status,
        next.nextRunAt === null ? '' : String(next.nextRunAt),
      );
      return done === 1;
    });
  }

  advance(id: string, from: number, to: number | null): Promise<boolean> {
    return this.call(
      async () =>
        (await this.cmd(
          'pwMonitorAdvance',
          k.monitor(id),
          k.due,
          id,
          String(from),
          to === null ? '' : String(to),
        )) === 1,
    );
  }

  putCheck(c: CheckRecord): Promise<void> {
    return this.call(async () => {
      const multi = this.redis
        .multi()
        .set(k.check(c.id), JSON.stringify(c))
        .zadd(k.checks(c.monitorId), c.createdAt, c.id);
      for (const status of CHECK_STATUSES) {
        if (status === c.status) multi.zadd(k.checksOf(c.monitorId, status), c.createdAt, c.id);
        else multi.zrem(k.checksOf(c.monitorId, status), c.id);
      }
      await run(multi);
    });
  }

  check(monitorId: string, checkId: string): Promise<CheckRecord | null> {
    return this.call(async () => {
      const raw = await this.redis.get(k.check(checkId));
      const check = raw === null ? null : (JSON.parse(raw) as CheckRecord);
      return check?.monitorId === monitorId ? check : null;
    });
  }

  checks(
    monitorId: string,
    offset: number,
    limit: number,
    status?: CheckStatus,
  ): Promise<{ checks: CheckRecord[]; total: number }> {
    const index = status === undefined ? k.checks(monitorId) : k.checksOf(monitorId, status);
    return this.call(async () => {
      const ids = limit > 0 ? await this.redis.zrevrange(index, offset, offset + limit - 1) : [];
      const checks = ids.length > 0 ? parsed<CheckRecord>(await this.redis.mget(ids.map(k.check))) : [];
      return { checks, total: await this.redis.zcard(index) };
    });
  }

  addPages(checkId: string, pages: CheckPage[]): Promise<void> {
    const keys = [k.pages(checkId), ...PAGE_STATUSES.map((s) => k.pagesOf(checkId, s))];
    return this.call(async () => {
      // One MULTI: a check's pages are all there or none (a check resumed after a crash writes them again).
      const multi = this.redis.multi();
      const addPages = (multi as unknown as Record<string, (...a: string[]) => unknown>).pwMonitorAddPages!;
      for (let i = 0; i < pages.length; i += CHUNK) {
        const args = pages
          .slice(i, i + CHUNK)
          .flatMap((p) => [String(PAGE_STATUSES.indexOf(p.status)), JSON.stringify(p)]);
        addPages.call(multi, ...keys, ...args);
      }
      await run(multi);
    });
  }

  pages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: CheckPage[]; total: number }> {
    return this.call(async () => {
      let seqs: string[];
      let total: number;
      if (status === undefined) {
        total = await this.redis.hlen(k.pages(checkId));
        seqs = range(skip, Math.min(total, skip + limit)).map(String);
      } else {
        total = await this.redis.llen(k.pagesOf(checkId, status));
        seqs = limit > 0 ? await this.redis.lrange(k.pagesOf(checkId, status), skip, skip + limit - 1) : [];
      }
      const pages =
        seqs.length > 0 ? parsed<CheckPage>(await this.redis.hmget(k.pages(checkId), ...seqs)) : [];
      return { pages, total };
    });
  }

  snapshot(monitorId: string, key: string): Promise<Snapshot | null> {
    return this.call(async () => {
      const raw = await this.redis.hget(k.snapshots(monitorId), key);
      return raw === null ? null : (JSON.parse(raw) as Snapshot);
    });
  }

  putSnapshot(monitorId: string, key: string, snapshot: Snapshot): Promise<void> {
    return this.call(
      async () => void (await this.redis.hset(k.snapshots(monitorId), key, JSON.stringify(snapshot))),
    );
  }

  deleteSnapshot(monitorId: string, key: string): Promise<void> {
    return this.call(async () => void (await this.redis.hdel(k.snapshots(monitorId), key)));
  }

  /** HSCAN, 1,000 fields a round, so a monitor with many pages never blocks Redis with one large reply. */
  snapshotKeys(monitorId: string, prefix: string): Promise<string[]> {
    return this.call(async () => {
      const keys = new Set<string>(); // HSCAN may answer a field twice
      let cursor = '0';
      do {
        const [next, flat] = await this.redis.hscan(
          k.snapshots(monitorId),
          cursor,
          'MATCH',
          `${globLiteral(prefix)}*`,
          'COUNT',
          1000,
        );
        for (let i = 0; i < flat.length; i += 2) if (flat[i]!.startsWith(prefix)) keys.add(flat[i]!);
        cursor = next;
      } while (cursor !== '0');
      return [...keys].sort();
    });
  }

  purgeChecks(monitorId: string, before: number): Promise<number> {
    return this.call(async () => {
      let purged = 0;
      for (;;) {
        const ids = await this.redis.zrangebyscore(
          k.checks(monitorId),
          '-inf',
          `(${before}`,
          'LIMIT',
          0,
          CHUNK,
        );
        if (ids.length === 0) return purged;
        await this.dropChecks(monitorId, ids);
        purged += ids.length;
      }
    });
  }

  /** Removes checks with their pages, and from the monitor's indexes. */
  private async dropChecks(monitorId: string, checkIds: string[]): Promise<void> {
    const multi = this.redis
      .multi()
      .unlink(...checkIds.flatMap(checkKeys))
      .zrem(k.checks(monitorId), ...checkIds);
    for (const status of CHECK_STATUSES) multi.zrem(k.checksOf(monitorId, status), ...checkIds);
    await run(multi);
  }
}
