import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CrawlBudget } from '../../crawl/budget.js';
import type { Politeness } from '../../crawl/politeness.js';
import { PACE_STEPS } from '../../crawl/throttle.js';
import type { Pace, SharedPace } from '../../crawl/throttle.js';
import { sleep } from '../../lib/sleep.js';

/** Claims a page for a URL within the limit. KEYS: claimed set. ARGV: url, limit. */
const TAKE = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1`;

/**
 * A host's turn for the whole fleet, on Redis's own clock (machines' clocks may differ): at most `max` requests
 * in flight (leases that run out if their holder dies) and request starts spaced by `delay`. Answers the wait
 * before starting, or -1 when every slot is taken; a hold (Retry-After) delays the start too. KEYS: next start,
 * slots, hold. ARGV: delay, max, token, lease.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[3]) or '0'))
redis.call('SET', KEYS[1], start + tonumber(ARGV[1]), 'PX', 3600000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[2], 3600000)
return start - now`;

/** Holds a host: no start before `ms` from now on Redis's clock. KEYS: hold. ARGV: ms. */
const HOLD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = now + tonumber(ARGV[1])
if held > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], held, 'PX', tonumber(ARGV[1]) + 1000) end
return held`;

/**
 * Starts a request to a host now, on Redis's clock, if the last request actually started `delay` ago and no hold
 * is on; else answers how long to wait first. A turn reserved by ACQUIRE may be spent late (a busy machine wakes
 * its timer late); the gap between actual starts is what a site sees, so it is checked here. KEYS: last start,
 * hold. ARGV: delay.
 */
const START = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local spaced = tonumber(redis.call('GET', KEYS[1]) or '0') + tonumber(ARGV[1]) - now
local held = tonumber(redis.call('GET', KEYS[2]) or '0') - now
local wait = math.max(spaced, held)
if wait > 0 then return wait end
redis.call('SET', KEYS[1], now, 'PX', 3600000)
return 0`;

/**
 * One answer applied to a crawl's host pace, as HostThrottle.answered does (crawl/throttle.ts, PACE_STEPS): a
 * throttle halves the requests in flight and doubles the added delay (from `first` up to `most`); a success
 * halves the delay and, every `step` successes, gives one more request in flight up to `max`. KEYS: the pace.
 * ARGV: throttled ('1' or '0'), max, first, most, step. Answers {inFlight, addedDelayMs, paused (1 or 0)}.
 */
const PACE = `
local max, first, most, step = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local inFlight = math.min(max, tonumber(redis.call('HGET', KEYS[1], 'inFlight') or ARGV[2]))
local delay = tonumber(redis.call('HGET', KEYS[1], 'delay') or '0')
local successes = tonumber(redis.call('HGET', KEYS[1], 'successes') or '0')
if ARGV[1] == '1' then
  successes = 0
  inFlight = math.max(1, math.floor(inFlight / 2))
  delay = math.min(most, math.max(first, delay * 2))
else
  if delay > 0 then
    if delay < 2 * first then delay = 0 else delay = math.floor(delay / 2) end
  end
  if inFlight < max then
    successes = successes + 1
    if successes >= step then inFlight = inFlight + 1; successes = 0 end
  end
end
redis.call('HSET', KEYS[1], 'inFlight', inFlight, 'delay', delay, 'successes', successes)
redis.call('PEXPIRE', KEYS[1], 86400000)
return {inFlight, delay, tonumber(redis.call('HGET', KEYS[1], 'paused') or '0')}`;

/**
 * One page's final outcome in a host's window of the crawl's last outcomes (a string of '1' refused, '0' not),
 * pausing the host when a full window holds more refusals than allowed. KEYS: the host's pace. ARGV: refused
 * ('1' or '0'), the window, the most refusals allowed. Answers 1 when the host is paused.
 */
const SETTLED = `
local window = tonumber(ARGV[2])
local outcomes = (redis.call('HGET', KEYS[1], 'outcomes') or '') .. ARGV[1]
if #outcomes > window then outcomes = string.sub(outcomes, -window) end
redis.call('HSET', KEYS[1], 'outcomes', outcomes)
redis.call('PEXPIRE', KEYS[1], 86400000)
if redis.call('HGET', KEYS[1], 'paused') == '1' then return 1 end
if #outcomes < window then return 0 end
local _, refused = string.gsub(outcomes, '1', '')
if refused <= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'paused', '1')
return 1`;

function define(redis: Redis): void {
  redis.defineCommand('pwHostPace', { numberOfKeys: 1, lua: PACE });
  redis.defineCommand('pwHostSettled', { numberOfKeys: 1, lua: SETTLED });
  redis.defineCommand('pwHostHold', { numberOfKeys: 1, lua: HOLD });
  redis.defineCommand('pwHostStart', { numberOfKeys: 2, lua: START });
  redis.defineCommand('pwBudgetTake', { numberOfKeys: 1, lua: TAKE });
  redis.defineCommand('pwHostAcquire', { numberOfKeys: 3, lua: ACQUIRE });
}

/** Redis's clock in ms: leases are compared on one clock whatever the machines' clocks say. */
export async function redisNow(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

const run = (redis: Redis, name: string, ...args: (string | number)[]): Promise<unknown> =>
  (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[name]!.call(
    redis,
    ...args,
  );

/**
 * A crawl's `limit` in Redis: the set of URLs claimed, shared by every worker of the job. The job's
 * RedisFrontier claims an item's page when it hands the item out (one round trip for both); `take` then
 * answers from what was claimed ahead, and asks Redis only for the others (the limit was reached).
 */
export class RedisBudget implements CrawlBudget {
  readonly key: string;
  private readonly ahead = new Set<string>();

  constructor(
    private readonly redis: Redis,
    jobId: string,
    readonly limit: number,
  ) {
    define(redis);
    this.key = `pw:job:${jobId}:claimed`;
  }

  /** The frontier claimed `url`'s page with the item it handed out. */
  claimedAhead(url: string): void {
    this.ahead.add(url);
  }

  async take(url: string): Promise<boolean> {
    if (this.ahead.delete(url)) return true;
    return (await run(this.redis, 'pwBudgetTake', this.key, url, this.limit)) === 1;
  }

  async giveBack(url: string): Promise<void> {
    this.ahead.delete(url);
    await this.redis.srem(this.key, url);
  }

  async skip(url: string): Promise<void> {
    // Claimed ahead for a page that will not be fetched (robots.txt): the claim goes back.
    if (this.ahead.delete(url)) await this.redis.srem(this.key, url);
  }
}

/**
 * Per-host politeness for the whole fleet: Crawl-delay and CRAWL_MIN_DELAY_MS hold per host whatever the
 * number of workers, at most `maxPerHost` requests are in flight to a host across them (fewer while a worker
 * sees the host throttle), and a host's Retry-After holds every worker.
 */
export class RedisPoliteness implements Politeness {
  private readonly held = new Map<string, string[]>();
  private readonly renewal: NodeJS.Timeout;

  /** A slot's lease is renewed while its request runs; a dead worker's slots free up after `leaseMs`. */
  constructor(
    private readonly redis: Redis,
    private readonly maxPerHost: number,
    private readonly leaseMs = 15_000,
  ) {
    define(redis);
    this.renewal = setInterval(() => void this.renew(), Math.max(500, leaseMs / 3));
    this.renewal.unref();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = (await redisNow(this.redis).catch(() => Date.now())) + this.leaseMs;
    const multi = this.redis.multi();
    for (const [host, tokens] of this.held) {
      for (const token of tokens) multi.zadd(`pw:host:${host}:slots`, 'XX', until, token);
    }
    await multi.exec().catch(() => undefined);
  }

  close(): void {
    clearInterval(this.renewal);
  }

  async acquire(host: string, delayMs: number, signal: AbortSignal, maxInFlight: number): Promise<boolean> {
    const token = randomUUID();
    const keys = [`pw:host:${host}:next`, `pw:host:${host}:slots`, `pw:host:${host}:hold`];
    const limit = Math.min(this.maxPerHost, maxInFlight);
    while (!signal.aborted) {
      const wait = Number(
        await run(this.redis, 'pwHostAcquire', ...keys, delayMs, limit, token, this.leaseMs),
      );
      if (wait < 0) {
        await sleep(50, signal); // every slot is taken, maybe by another process: look again shortly
        continue;
      }
      const tokens = this.held.get(host) ?? [];
      tokens.push(token);
      this.held.set(host, tokens);
      await sleep(wait, signal);
      // The start itself, spaced from the last actual start; a hold that came while this request waited its
      // turn (another worker's 429) holds it too.
      const start = [`pw:host:${host}:started`, `pw:host:${host}:hold`];
      for (
        let left = Number(await run(this.redis, 'pwHostStart', ...start, delayMs));
        left > 0 && !signal.aborted;
        left = Number(await run(this.redis, 'pwHostStart', ...start, delayMs))
      ) {
        await sleep(left, signal);
      }
      if (!signal.aborted) return true;
      this.release(host);
      return false;
    }
    return false;
  }

  release(host: string): void {
    const token = this.held.get(host)?.shift();
    if (token) void this.redis.zrem(`pw:host:${host}:slots`, token).catch(() => undefined);
  }

  /** Every worker of the fleet waits: the host's next start is shared. */
  async hold(host: string, ms: number): Promise<void> {
    await run(this.redis, 'pwHostHold', `pw:host:${host}:hold`, Math.round(ms));
  }
}

/**
 * A crawl's pace per host for the whole fleet: every worker's 429s slow the host down for all of them, and a
 * host one worker paused is paused for all.
 */
export class RedisPace implements SharedPace {
  constructor(
    private readonly redis: Redis,
    private readonly jobId: string,
  ) {
    define(redis);
  }

  async answered(host: string, throttled: boolean, maxInFlight: number): Promise<Pace> {
    const { firstAddedDelayMs, maxAddedDelayMs, successesPerStep } = PACE_STEPS;
    const [inFlight, addedDelayMs, paused] = (await run(
      this.redis,
      'pwHostPace',
      this.key(host),
      throttled ? '1' : '0',
      maxInFlight,
      firstAddedDelayMs,
      maxAddedDelayMs,
      successesPerStep,
    )) as [number, number, number];
    return { inFlight, addedDelayMs, paused: paused === 1 };
  }

  async settled(host: string, refused: boolean): Promise<boolean> {
    const { outcomeWindow, mostRefused } = PACE_STEPS;
    const paused = await run(
      this.redis,
      'pwHostSettled',
      this.key(host),
      refused ? '1' : '0',
      outcomeWindow,
      mostRefused,
    );
    return paused === 1;
  }

  async pause(host: string): Promise<void> {
    const key = this.key(host);
    await this.redis.multi().hset(key, 'paused', '1').pexpire(key, 86_400_000).exec();
  }

  async paused(host: string): Promise<boolean> {
    return (await this.redis.hget(this.key(host), 'paused')) === '1';
  }

  private key(host: string): string {
    return `pw:job:${this.jobId}:pace:${host}`;
  }
}
