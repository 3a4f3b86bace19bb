import type { Redis } from 'ioredis';
import type { PageStore, StoredPage } from './page-store.js';
import { storeCall } from './sqlite.js';

/** The page store in Redis (`pw:page:<key>`), shared by the fleet; Redis expires entries after `ttlMs`. */
export class RedisPageStore implements PageStore {
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {}

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  get(key: string): Promise<StoredPage | null> {
    return this.call(async () => {
      const raw = await this.redis.get(`pw:page:${key}`);
      return raw === null ? null : (JSON.parse(raw) as StoredPage);
    });
  }

  put(key: string, body: string, at: number): Promise<void> {
    return this.call(
      async () =>
        void (await this.redis.set(`pw:page:${key}`, JSON.stringify({ body, at }), 'PX', this.ttlMs)),
    );
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // entries expire on their own
  }
}
