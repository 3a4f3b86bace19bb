import type { Redis } from 'ioredis';
import { AppError } from '../../errors.js';
import { jobLimitError } from '../../tenants/job-places.js';
import type { JobLimit, JobPlaces } from '../../tenants/job-places.js';
import type { TenantLimits } from '../../tenants/tenant.js';
import { JOB_KEY_PREFIX } from './redis-job-store.js';
import { storeError } from './sqlite.js';

/**
 * A place held for a job whose hash is not written yet (admitted, being created) is kept this long; past it,
 * the creation failed with its process and the place is freed.
 */
const CREATING_MS = 60_000;

/**
 * Admits a job when the owner holds fewer than each limit, counted on Redis's clock. KEYS: one sorted set of
 * job ids per counted limit (scored by when the place was taken). ARGV: the job hashes' key prefix, the job
 * id, CREATING_MS, then one limit per key. Ids whose job has ended (its state is final) or is gone (expired,
 * purged, or never created past CREATING_MS) are dropped first, so a job that ends needs no write here. Reads
 * job hashes it is not given as KEYS: the fleet's Redis is one server (no cluster). Answers {0} when admitted,
 * else {the index of the first limit reached, its count}.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = {}
for k = 1, #KEYS do
  local members = redis.call('ZRANGE', KEYS[k], 0, -1, 'WITHSCORES')
  for i = 1, #members, 2 do
    local state = redis.call('HGET', ARGV[1] .. members[i], 'state')
    if (state == false and tonumber(members[i + 1]) < now - tonumber(ARGV[3])) or (state and state ~= 'scraping') then
      redis.call('ZREM', KEYS[k], members[i])
    end
  end
  held[k] = redis.call('ZCARD', KEYS[k])
  if held[k] >= tonumber(ARGV[3 + k]) then return {k, held[k]} end
end
for k = 1, #KEYS do redis.call('ZADD', KEYS[k], now, ARGV[2]) end
return {0, 0}`;

/** The sorted set of `owner`'s jobs counted for `limit` (BullFleet reads a job's place among them). */
export const jobsKey = (owner: string, limit: JobLimit): string => `pw:tenant:${owner}:jobs:${limit}`;

type Scripts = {
  pwAdmitJob(keys: number, ...args: (string | number)[]): Promise<[number, number]>;
};

/**
 * Each tenant's jobs not ended across a fleet: a sorted set of job ids per tenant and limit in Redis. The
 * count and the place are taken in one script, so two API processes never both admit the last place; the
 * job's hash (RedisJobStore) says whether it still runs, so ending, cancelling, expiring or purging a job
 * frees its place with no write here, and a job a dead process left running still holds it.
 */
export class RedisJobPlaces implements JobPlaces {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('pwAdmitJob', { lua: ADMIT });
  }

  async admit<T>(
    owner: string,
    id: string,
    counted: readonly JobLimit[],
    limits: TenantLimits,
    create: () => Promise<T>,
  ): Promise<T> {
    if (counted.length === 0) return create();
    const keys = counted.map((limit) => jobsKey(owner, limit));
    let answer: [number, number];
    try {
      answer = await (this.redis as unknown as Scripts).pwAdmitJob(
        keys.length,
        ...keys,
        JOB_KEY_PREFIX,
        id,
        CREATING_MS,
        ...counted.map((limit) => limits[limit]),
      );
    } catch (err) {
      throw err instanceof AppError ? err : storeError(err);
    }
    const [reached, held] = answer;
    if (reached > 0) throw jobLimitError(owner, counted[reached - 1]!, limits, held);
    try {
      return await create();
    } catch (err) {
      // Not created: its place is given back (else it would be held until CREATING_MS).
      await Promise.all(keys.map((key) => this.redis.zrem(key, id).catch(() => undefined)));
      throw err;
    }
  }
}
