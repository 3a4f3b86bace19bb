import type { Redis } from 'ioredis';
import type { Frontier, FrontierItem, FrontierStats } from '../../crawl/frontier.js';
import { normalizeUrl } from '../../crawl/normalize.js';
import { redisNow } from './redis-crawl-state.js';
import type { RedisBudget } from './redis-crawl-state.js';
import { storeCall } from './sqlite.js';

/** Accepts unseen URLs. KEYS: seen, queue. ARGV: pairs of (key, item JSON). */
const ADD = `
local accepted = 0
for i = 1, #ARGV, 2 do
  if redis.call('SADD', KEYS[1], ARGV[i]) == 1 then
    redis.call('RPUSH', KEYS[2], ARGV[i + 1])
    accepted = accepted + 1
  end
end
return accepted`;

/**
 * Completes the items done (ARGV 3...), then takes the next item under a lease; items whose lease ran out
 * (their worker died) go back to the head of the queue first, and after them the retries whose time has come
 * (earliest first), on Redis's own clock (the machines' clocks may differ). With a limit (ARGV 2 >= 0), the
 * item's page is claimed against the crawl's limit in the same step (see RedisBudget). KEYS: queue, inflight,
 * retries, claimed, delayed. ARGV: lease ms, limit, done members. Answers {item, retried, claimed}.
 */
const NEXT = `
for i = 3, #ARGV do redis.call('ZREM', KEYS[2], ARGV[i]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)
for i = #due, 1, -1 do
  redis.call('ZREM', KEYS[5], due[i])
  redis.call('LPUSH', KEYS[1], due[i])
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for i = #expired, 1, -1 do
  redis.call('ZREM', KEYS[2], expired[i])
  redis.call('LPUSH', KEYS[1], expired[i])
  redis.call('SADD', KEYS[3], expired[i])
end
local item = redis.call('LPOP', KEYS[1])
if not item then return false end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), item)
local claimed = 0
local limit = tonumber(ARGV[2])
if limit >= 0 then
  local url = cjson.decode(item).url
  if redis.call('SISMEMBER', KEYS[4], url) == 1 then
    claimed = 1
  elseif redis.call('SCARD', KEYS[4]) < limit then
    redis.call('SADD', KEYS[4], url)
    claimed = 1
  end
end
return {item, redis.call('SREM', KEYS[3], item), claimed}`;

/** Puts every in-flight item back at the head of the queue. KEYS: queue, inflight, retries. */
const REQUEUE = `
local items = redis.call('ZRANGE', KEYS[2], 0, -1)
for i = #items, 1, -1 do
  redis.call('LPUSH', KEYS[1], items[i])
  redis.call('SADD', KEYS[3], items[i])
end
redis.call('DEL', KEYS[2])
return #items`;

/**
 * Puts an in-flight item back, due `ARGV 3` ms from now on Redis's clock, as its next attempt (ARGV 2); nothing
 * when the item is no longer this worker's (its lease ran out and another took it). KEYS: inflight, delayed.
 * ARGV: member, member of the next attempt, delay ms.
 */
const RETRY_LATER = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
return 1`;

const encode = (item: FrontierItem): string =>
  JSON.stringify({
    url: item.url,
    depth: item.depth,
    pagination: item.pagination,
    ...(item.attempts ? { attempts: item.attempts } : {}),
  });

/**
 * A job's frontier in Redis, shared by every worker process working the job: a set of URLs seen, a queue,
 * and the items in flight as a sorted set of leases. A worker renews the leases of what it holds; when it
 * dies, its items are taken over by the next `next()` of any worker once their lease runs out, so a URL is
 * never lost, at worst fetched twice (documents are unique per URL). Items put back for a retry wait in a
 * sorted set by the time they are due. The same contract as every adapter.
 * Given the crawl's budget, `next` also claims the item's page against the limit: a page costs one round trip
 * fewer (each round trip is a write to the socket, and the worker's CPU is what a crawl spends).
 */
export class RedisFrontier implements Frontier {
  private readonly held = new Set<string>();
  private readonly renewal: NodeJS.Timeout;
  private readonly keys: { seen: string; queue: string; inflight: string; retries: string; delayed: string };

  constructor(
    private readonly redis: Redis,
    jobId: string,
    private readonly leaseMs = 60_000,
    private readonly budget: RedisBudget | null = null,
  ) {
    const base = `pw:job:${jobId}:frontier`;
    this.keys = {
      seen: `${base}:seen`,
      queue: `${base}:queue`,
      inflight: `${base}:inflight`,
      retries: `${base}:retries`,
      delayed: `${base}:delayed`,
    };
    redis.defineCommand('pwFrontierAdd', { numberOfKeys: 2, lua: ADD });
    redis.defineCommand('pwFrontierNext', { numberOfKeys: 5, lua: NEXT });
    redis.defineCommand('pwFrontierRetryLater', { numberOfKeys: 2, lua: RETRY_LATER });
    redis.defineCommand('pwFrontierRequeue', { numberOfKeys: 3, lua: REQUEUE });
    // Leases of what this process holds are renewed well before they run out.
    this.renewal = setInterval(() => void this.renew(), Math.max(1000, leaseMs / 3));
    this.renewal.unref();
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  private cmd(name: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[
      name
    ]!;
    return fn.call(this.redis, ...keys, ...args);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = (await redisNow(this.redis).catch(() => Date.now())) + this.leaseMs;
    const multi = this.redis.multi();
    for (const member of this.held) multi.zadd(this.keys.inflight, 'XX', until, member);
    await multi.exec().catch(() => undefined); // a lost renewal only risks a second fetch
  }

  add(items: readonly FrontierItem[]): Promise<number> {
    const args: string[] = [];
    for (const item of items) {
      const key = normalizeUrl(item.url);
      if (key !== null) args.push(key, encode({ ...item, url: key }));
    }
    if (args.length === 0) return Promise.resolve(0);
    return this.call(async () =>
      Number(await this.cmd('pwFrontierAdd', [this.keys.seen, this.keys.queue], args)),
    );
  }

  next(done?: FrontierItem): Promise<FrontierItem | undefined> {
    const completed = done ? [encode(done)] : [];
    for (const member of completed) this.held.delete(member);
    return this.call(async () => {
      const keys = [
        this.keys.queue,
        this.keys.inflight,
        this.keys.retries,
        this.budget?.key ?? this.keys.seen,
        this.keys.delayed,
      ];
      const args = [this.leaseMs, this.budget?.limit ?? -1, ...completed];
      const raw = await this.cmd('pwFrontierNext', keys, args);
      if (!Array.isArray(raw)) return undefined;
      const [member, retried, claimed] = raw as [string, number, number];
      this.held.add(member);
      const item = JSON.parse(member) as FrontierItem;
      if (claimed === 1) this.budget?.claimedAhead(item.url);
      return retried === 1 ? { ...item, retry: true } : item;
    });
  }

  complete(item: FrontierItem): Promise<void> {
    const member = encode(item);
    this.held.delete(member);
    return this.call(async () => void (await this.redis.zrem(this.keys.inflight, member)));
  }

  retryLater(item: FrontierItem, delayMs: number): Promise<void> {
    const member = encode(item);
    this.held.delete(member);
    const again = encode({ ...item, attempts: (item.attempts ?? 0) + 1 });
    return this.call(async () => {
      const keys = [this.keys.inflight, this.keys.delayed];
      await this.cmd('pwFrontierRetryLater', keys, [member, again, Math.max(0, Math.round(delayMs))]);
    });
  }

  stats(): Promise<FrontierStats> {
    return this.call(async () => {
      // One round trip for the four counts.
      const replies = await this.redis
        .multi()
        .llen(this.keys.queue)
        .zcard(this.keys.delayed)
        .zcard(this.keys.inflight)
        .scard(this.keys.seen)
        .exec();
      const [ready, delayed, inFlight, discovered] = (replies ?? []).map(([err, value]) => {
        if (err) throw err;
        return Number(value);
      });
      return { queued: ready! + delayed!, delayed: delayed!, inFlight: inFlight!, discovered: discovered! };
    });
  }

  requeueInFlight(): Promise<number> {
    this.held.clear();
    return this.call(async () =>
      Number(
        await this.cmd('pwFrontierRequeue', [this.keys.queue, this.keys.inflight, this.keys.retries], []),
      ),
    );
  }

  /** Stops renewing leases (the items held are released to whoever comes next when they run out). */
  close(): void {
    clearInterval(this.renewal);
  }
}
