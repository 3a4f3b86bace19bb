import type { Redis } from 'ioredis';
import { storeCall } from '../sqlite.js';
import {
  USAGE_FIELDS,
  USAGE_KEEP_DAYS,
  addsAnything,
  byTenantThenDay,
  dayStart,
  daysBetween,
} from './usage-store.js';
import type { UsageAdd, UsageDay, UsageStore } from './usage-store.js';

const DAY_S = 86_400;
const keyOf = (day: string, tenant: string): string => `pw:usage:${day}:${tenant}`;
/** The tenants that used anything on a day (what an operator's "every tenant" reads). */
const tenantsOf = (day: string): string => `pw:usage-tenants:${day}`;

/**
 * Usage in Redis, shared by the fleet: a hash `pw:usage:<day>:<tenant>` per tenant and UTC day, added to with
 * HINCRBY (atomic whatever the number of processes), and a set `pw:usage-tenants:<day>` of the day's tenants.
 * Both expire USAGE_KEEP_DAYS after their day. One `add` is one MULTI: one round trip for any number of days.
 */
export class RedisUsageStore implements UsageStore {
  constructor(private readonly redis: Redis) {}

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  add(adds: UsageAdd[]): Promise<void> {
    return this.call(async () => {
      const real = adds.filter((a) => addsAnything(a.counts));
      if (real.length === 0) return;
      const multi = this.redis.multi();
      for (const { tenant, day, counts } of real) {
        const key = keyOf(day, tenant);
        const expireAt = dayStart(day) / 1000 + USAGE_KEEP_DAYS * DAY_S;
        for (const field of USAGE_FIELDS) {
          const n = Math.round(counts[field] ?? 0);
          if (n !== 0) multi.hincrby(key, field, n);
        }
        multi.expireat(key, expireAt).sadd(tenantsOf(day), tenant).expireat(tenantsOf(day), expireAt);
      }
      const replies = (await multi.exec()) ?? [];
      const failed = replies.find(([err]) => err !== null);
      if (failed) throw failed[0];
    });
  }

  days(from: string, to: string, tenant?: string): Promise<UsageDay[]> {
    return this.call(async () => {
      const days = daysBetween(from, to);
      let keys: [day: string, tenant: string][];
      if (tenant !== undefined) keys = days.map((day) => [day, tenant]);
      else {
        const read = this.redis.pipeline();
        for (const day of days) read.smembers(tenantsOf(day));
        const members = (await read.exec()) ?? [];
        keys = days.flatMap((day, i) =>
          ((members[i]?.[1] as string[] | undefined) ?? []).map((t): [string, string] => [day, t]),
        );
      }
      if (keys.length === 0) return [];
      const read = this.redis.pipeline();
      for (const [day, t] of keys) read.hgetall(keyOf(day, t));
      const hashes = (await read.exec()) ?? [];
      const found: UsageDay[] = [];
      keys.forEach(([day, t], i) => {
        const [err, hash] = hashes[i] ?? [null, null];
        if (err) throw err;
        const h = (hash ?? {}) as Record<string, string>;
        if (Object.keys(h).length === 0) return;
        const d = { day, tenant: t } as UsageDay;
        for (const field of USAGE_FIELDS) d[field] = Number(h[field] ?? 0);
        found.push(d);
      });
      return found.sort(byTenantThenDay);
    });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
