import { Redis } from 'ioredis';
import type { ProxyShare, ProxyTier } from '../../lib/proxy-pool.js';

/** A command Redis has not answered in this long fails, and the pool decides alone. */
const COMMAND_TIMEOUT_MS = 2000;
/** How long a session's choices are kept after their last change (a job's hosts keep their proxies meanwhile). */
const STICKY_MS = 24 * 3_600_000;

/**
 * A pair's proxy: the one set for it, else (or with `replace`) the next of the allowed indexes in the fleet's
 * turn, set for it. KEYS: the session's choices, the turn. ARGV: host, replace ('1' or '0'), ttl ms, allowed...
 */
const CHOOSE = `
if ARGV[2] ~= '1' then
  local set = redis.call('HGET', KEYS[1], ARGV[1])
  if set then return tonumber(set) end
end
local turn = redis.call('INCR', KEYS[2]) - 1
local index = ARGV[4 + (turn % (#ARGV - 3))]
redis.call('HSET', KEYS[1], ARGV[1], index)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return tonumber(index)`;

/** Sets a proxy's rest unless a later one is set. KEYS: rests. ARGV: index, until. */
const REST = `
local now = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > now then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`;

type Scripts = {
  pwProxyChoose(
    key: string,
    turn: string,
    host: string,
    replace: string,
    ttl: number,
    ...allowed: number[]
  ): Promise<number>;
  pwProxyRest(key: string, index: number, until: number): Promise<number>;
};

/**
 * The proxies' shared state of a fleet in Redis, one tier each (lib/proxy-pool.ts decides with it): a hash of
 * host → proxy per session (`pw:proxy:<tier>:sticky:<session>`), the rotation's counter and a hash of rests by
 * proxy index. While Redis is away, commands fail within COMMAND_TIMEOUT_MS and the pool decides alone.
 */
export class RedisProxyShares {
  private readonly redis: Redis;

  constructor(url: string) {
    // Commands wait for the connection (the first crawl may start as the process does), but never long: past
    // COMMAND_TIMEOUT_MS the pool decides alone rather than hold a request.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
    this.redis.on('error', () => undefined); // each call's failure is handled where it is made
    this.redis.defineCommand('pwProxyChoose', { numberOfKeys: 2, lua: CHOOSE });
    this.redis.defineCommand('pwProxyRest', { numberOfKeys: 1, lua: REST });
  }

  /** The share of one tier (all tiers share the connection; closing any closes it). */
  tier(tier: ProxyTier): ProxyShare {
    const redis = this.redis;
    const scripts = redis as unknown as Scripts;
    const k = {
      sticky: (session: string) => `pw:proxy:${tier}:sticky:${session}`,
      turn: `pw:proxy:${tier}:turn`,
      rests: `pw:proxy:${tier}:rests`,
    };
    return {
      stuck: async (session, host) => {
        const index = await redis.hget(k.sticky(session), host);
        return index === null ? null : Number(index);
      },
      choose: (session, host, allowed, replace) =>
        scripts.pwProxyChoose(k.sticky(session), k.turn, host, replace ? '1' : '0', STICKY_MS, ...allowed),
      rests: async () => {
        const fields = await redis.hgetall(k.rests);
        return new Map(Object.entries(fields).map(([index, until]) => [Number(index), Number(until)]));
      },
      rest: async (index, until) => void (await scripts.pwProxyRest(k.rests, index, until)),
      recovered: async (index) => void (await redis.hdel(k.rests, String(index))),
      close: () => this.close(),
    };
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
