import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { RedisJobStore } from '../../src/jobs/redis-job-store.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { jobStoreContract } from './contract.js';

/** The same contract suites as the embedded adapters, against a real redis-server (scripts/ensure-redis.sh). */

let server: RedisServer | null = null;
before(async () => {
  if (redisAvailable) server = await startRedis();
});
after(async () => server?.close());

const connect = (): Redis => new Redis(server!.url, { maxRetriesPerRequest: 1, lazyConnect: false });

if (redisAvailable) {
  jobStoreContract('redis', async (ttlMs) => {
    const admin = connect();
    await admin.flushdb();
    await admin.quit();
    let store = new RedisJobStore(connect(), ttlMs);
    return {
      get store() {
        return store;
      },
      // A crash of the process: a new connection finds what Redis acknowledged.
      reopen: async () => {
        await store.close();
        store = new RedisJobStore(connect(), ttlMs);
        return store;
      },
      close: () => store.close(),
    };
  });
} else {
  console.log(`# !!! REDIS CONTRACT TESTS SKIPPED: ${REDIS_MISSING}`);
}
