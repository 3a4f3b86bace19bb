import type { Redis } from 'ioredis';
import { byNewest } from './session-store.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { storeCall } from '../sqlite.js';

const IDS = 'pw:browser-sessions';
const keyOf = (id: string): string => `pw:browser-session:${id}`;

/**
 * The session store in Redis, shared by the fleet: each record a string `pw:browser-session:<id>` that Redis
 * expires at its `keepUntil`, and the set `pw:browser-sessions` of ids (an expired id is dropped when listed).
 */
export class RedisSessionStore implements SessionStore {
  constructor(private readonly redis: Redis) {}

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  get(id: string): Promise<SessionRecord | null> {
    return this.call(async () => {
      const raw = await this.redis.get(keyOf(id));
      return raw === null ? null : (JSON.parse(raw) as SessionRecord);
    });
  }

  put(record: SessionRecord): Promise<void> {
    return this.call(async () => {
      await this.redis
        .multi()
        .set(keyOf(record.id), JSON.stringify(record), 'PXAT', record.keepUntil)
        .sadd(IDS, record.id)
        .exec();
    });
  }

  list(status?: SessionRecord['status']): Promise<SessionRecord[]> {
    return this.call(async () => {
      const ids = await this.redis.smembers(IDS);
      if (ids.length === 0) return [];
      const raws = await this.redis.mget(ids.map(keyOf));
      const gone = ids.filter((_, i) => raws[i] === null);
      if (gone.length > 0) await this.redis.srem(IDS, ...gone);
      return raws
        .filter((raw): raw is string => raw !== null)
        .map((raw) => JSON.parse(raw) as SessionRecord)
        .filter((r) => status === undefined || r.status === status)
        .sort(byNewest);
    });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
