import type { Redis } from 'ioredis';
import type { ScrapeOrigin, ScrapeOriginStore } from './scrape-origin-store.js';
import { storeCall } from '../sqlite.js';

const keyOf = (scrapeId: string): string => `pw:scrape-origin:${scrapeId}`;

/** The scrape origins in Redis, shared by the fleet: each a string that Redis expires at its `keepUntil`. */
export class RedisScrapeOriginStore implements ScrapeOriginStore {
  constructor(private readonly redis: Redis) {}

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  get(scrapeId: string): Promise<ScrapeOrigin | null> {
    return this.call(async () => {
      const raw = await this.redis.get(keyOf(scrapeId));
      return raw === null ? null : (JSON.parse(raw) as ScrapeOrigin);
    });
  }

  put(origin: ScrapeOrigin): Promise<void> {
    return this.call(async () => {
      await this.redis.set(keyOf(origin.scrapeId), JSON.stringify(origin), 'PXAT', origin.keepUntil);
    });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
