import type { Redis } from 'ioredis';
import { RedisExpiringRecords } from './redis-expiring-records.js';
import type { ScrapeOrigin, ScrapeOriginStore } from './scrape-origin-store.js';

const keyOf = (scrapeId: string): string => `pw:scrape-origin:${scrapeId}`;

/** The scrape origins in Redis, shared by the fleet: each a string that Redis expires at its `keepUntil`. */
export class RedisScrapeOriginStore implements ScrapeOriginStore {
  private readonly records: RedisExpiringRecords<ScrapeOrigin>;

  constructor(redis: Redis) {
    this.records = new RedisExpiringRecords(redis);
  }

  get(scrapeId: string): Promise<ScrapeOrigin | null> {
    return this.records.get(keyOf(scrapeId));
  }

  put(origin: ScrapeOrigin): Promise<void> {
    return this.records.put(keyOf(origin.scrapeId), origin, origin.keepUntil);
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
