import type { Redis } from 'ioredis';
import { AppError } from '../../../errors.js';
import type { ProfileRecord, ProfileStore } from './profile-store.js';
import { storeError } from '../sqlite.js';

const NAMES = 'pw:profiles';
const keyOf = (name: string): string => `pw:profile:${name}`;

/**
 * The profile store in Redis, shared by the fleet: each profile a string `pw:profile:<name>` that Redis expires
 * at its `expiresAt`, and the set `pw:profiles` of names (a name whose key has expired is dropped when listed).
 */
export class RedisProfileStore implements ProfileStore {
  constructor(private readonly redis: Redis) {}

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw err instanceof AppError ? err : storeError(err);
    }
  }

  get(name: string): Promise<ProfileRecord | null> {
    return this.call(async () => {
      const raw = await this.redis.get(keyOf(name));
      return raw === null ? null : (JSON.parse(raw) as ProfileRecord);
    });
  }

  put(record: ProfileRecord): Promise<void> {
    return this.call(async () => {
      await this.redis
        .multi()
        .set(keyOf(record.name), JSON.stringify(record), 'PXAT', record.expiresAt)
        .sadd(NAMES, record.name)
        .exec();
    });
  }

  list(): Promise<ProfileRecord[]> {
    return this.call(async () => {
      const names = (await this.redis.smembers(NAMES)).sort();
      if (names.length === 0) return [];
      const raws = await this.redis.mget(names.map(keyOf));
      const gone = names.filter((_, i) => raws[i] === null);
      if (gone.length > 0) await this.redis.srem(NAMES, ...gone);
      return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as ProfileRecord);
    });
  }

  delete(name: string): Promise<boolean> {
    return this.call(async () => {
      const [removed] = (await this.redis.multi().del(keyOf(name)).srem(NAMES, name).exec()) ?? [];
      return Number(removed?.[1] ?? 0) > 0;
    });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
