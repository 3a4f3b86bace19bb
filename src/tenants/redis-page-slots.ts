import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../errors.js';
import { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/logger.js';
import { HoldTimes } from './page-slots.js';
import type { PageSlot, PageSlots } from './page-slots.js';
import type { LimitsOf } from './tenant.js';

/** Where a release is announced when its tenant was at its limit: the fleet's waiters of that tenant look again. */
const FREED = 'pw:tenant-pages:freed';

/**
 * Takes a slot when fewer than the limit are leased, on Redis's clock (machines' clocks may differ): leases
 * whose time ran out (their process died) are dropped first. KEYS: leases. ARGV: limit, token, lease ms.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
return 1`;

/**
 * Gives a slot back; when the tenant was at its limit, says so on FREED. KEYS: leases. ARGV: token, limit,
 * channel, tenant.
 */
const RELEASE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('ZCARD', KEYS[1]) + 1 >= tonumber(ARGV[2]) then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1`;

/** Extends the leases still held (never one already dropped). KEYS: leases. ARGV: lease ms, tokens... */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[1]))
return 0`;

/** A waiter looks again this often even without news of a release (a dead process's leases running out). */
const LOOK_AGAIN_MS = 1000;

type Scripts = {
  pwPagesTake(key: string, limit: number, token: string, leaseMs: number): Promise<number>;
  pwPagesRelease(key: string, token: string, limit: number, channel: string, tenant: string): Promise<number>;
  pwPagesRenew(key: string, leaseMs: number, ...tokens: string[]): Promise<number>;
};

/**
 * Each tenant's pages across a fleet: a sorted set of leases per tenant in Redis, scored by when each runs out
 * (renewed every third of the lease while held, so a dead process's slots come back after `leaseMs`). Taking
 * and giving back are one script each, one round trip. In this process one waiter per tenant asks Redis at a
 * time (the tenant's seat, a Gate of one, keeps the others in arrival order); it asks again when a release of
 * that tenant is announced, or after LOOK_AGAIN_MS.
 */
export class RedisPageSlots implements PageSlots {
  private readonly redis: Redis;
  private readonly news: Redis;
  private readonly seats = new Map<string, Gate>();
  /** Tokens held by this process, by tenant: what the renewal extends. */
  private readonly held = new Map<string, Set<string>>();
  /** Waiters to wake at the next release of a tenant. */
  private readonly freed = new Map<string, Set<() => void>>();
  private readonly holds = new HoldTimes();
  private readonly renewal: NodeJS.Timeout;
  private everReady = false;

  constructor(
    url: string,
    readonly limits: LimitsOf,
    private readonly leaseMs: number,
    log: Logger,
  ) {
    // Commands fail at once while Redis is away (a scrape answers 503) instead of queueing.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined); // the job engine's connection reports Redis being away
    this.redis.once('ready', () => (this.everReady = true));
    this.redis.defineCommand('pwPagesTake', { numberOfKeys: 1, lua: TAKE });
    this.redis.defineCommand('pwPagesRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis.defineCommand('pwPagesRenew', { numberOfKeys: 1, lua: RENEW });
    this.news = new Redis(url, { maxRetriesPerRequest: null });
    this.news.on('error', () => undefined);
    this.news.on('message', (_channel: string, tenant: string) => this.wake(tenant));
    this.news.subscribe(FREED).catch((err: unknown) => {
      log.warn({ reason: (err as Error).message }, 'page slots: no news of releases; waiters poll');
    });
    this.renewal = setInterval(() => void this.renew(), Math.max(100, leaseMs / 3));
    this.renewal.unref();
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  private keyOf(tenant: string): string {
    return `pw:tenant:${tenant}:pages`;
  }

  async take(tenant: string, signal: AbortSignal): Promise<PageSlot | null> {
    let seat = this.seats.get(tenant);
    if (!seat) {
      seat = new Gate(`page slot queue of ${tenant}`, 1, Number.POSITIVE_INFINITY);
      this.seats.set(tenant, seat);
    }
    try {
      await seat.enter(signal);
    } catch (err) {
      if (signal.aborted) return null;
      throw err;
    }
    try {
      const token = randomUUID();
      while (!signal.aborted) {
        const news = this.nextRelease(tenant, signal); // listened for before asking: no release is missed
        if (await this.tryTake(tenant, token, signal)) {
          news.cancel();
          return this.slot(tenant, token);
        }
        await news.wait;
      }
      return null;
    } finally {
      seat.leave();
    }
  }

  typicalHoldMs(tenant: string): number {
    return this.holds.typical(tenant);
  }

  private async tryTake(tenant: string, token: string, signal: AbortSignal): Promise<boolean> {
    if (this.redis.status !== 'ready') {
      if (this.everReady)
        throw new StoreUnavailableError('Redis is unreachable: page slots cannot be counted');
      await once(this.redis, 'ready', { signal }).catch(() => undefined); // a process just started
      if (signal.aborted) return false;
    }
    const limit = this.limits(tenant).scrapes;
    try {
      return (await this.scripts.pwPagesTake(this.keyOf(tenant), limit, token, this.leaseMs)) === 1;
    } catch (err) {
      throw new StoreUnavailableError(`Page slots cannot be counted in Redis: ${(err as Error).message}`);
    }
  }

  private slot(tenant: string, token: string): PageSlot {
    const tokens = this.held.get(tenant) ?? new Set<string>();
    tokens.add(token);
    this.held.set(tenant, tokens);
    const done = this.holds.start(tenant);
    return {
      release: () => {
        if (!tokens.delete(token)) return;
        if (tokens.size === 0) this.held.delete(tenant);
        done();
        const limit = this.limits(tenant).scrapes;
        void this.scripts
          .pwPagesRelease(this.keyOf(tenant), token, limit, FREED, tenant)
          .catch(() => undefined) // the lease runs out by itself
          .finally(() => this.wake(tenant)); // waiters here need no news from Redis
      },
    };
  }

  /** Resolves at the next release of `tenant`, after LOOK_AGAIN_MS, or when `signal` aborts. */
  private nextRelease(tenant: string, signal: AbortSignal): { wait: Promise<void>; cancel(): void } {
    let done = (): void => undefined;
    const wait = new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), LOOK_AGAIN_MS);
      const waiters = this.freed.get(tenant) ?? new Set<() => void>();
      this.freed.set(tenant, waiters);
      done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0 && this.freed.get(tenant) === waiters) this.freed.delete(tenant);
        resolve();
      };
      waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
    return { wait, cancel: () => done() };
  }

  private wake(tenant: string): void {
    const waiters = this.freed.get(tenant);
    if (waiters) for (const done of [...waiters]) done();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0 || this.redis.status !== 'ready') return;
    await Promise.all(
      [...this.held].map(([tenant, tokens]) =>
        this.scripts.pwPagesRenew(this.keyOf(tenant), this.leaseMs, ...tokens).catch(() => undefined),
      ),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    for (const tenant of [...this.freed.keys()]) this.wake(tenant);
    this.news.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
