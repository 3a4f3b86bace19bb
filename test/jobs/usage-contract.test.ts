import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';
import { MemoryUsageStore, addDays, utcDay } from '../../src/jobs/stores/usage-state/usage-store.js';
import { RedisUsageStore } from '../../src/jobs/stores/usage-state/redis-usage-store.js';
import { SqliteUsageStore } from '../../src/jobs/stores/usage-state/sqlite-usage-store.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { usageStoreContract } from './usage-contract.js';

/** The usage store's contract against each adapter: memory, the SQLite file, a real redis-server. */

const oldestKept = (): string => addDays(utcDay(Date.now()), -400);

usageStoreContract('memory', async () => ({
  store: new MemoryUsageStore(),
  purges: true,
  close: async () => undefined,
}));

usageStoreContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-usage-'));
  let db = SqliteDb.open(dir);
  return {
    store: new SqliteUsageStore(db, oldestKept),
    // A restart: the file is closed and opened again by a new connection (what was committed is all there is).
    reopen: async () => {
      await db.close();
      db = SqliteDb.open(dir);
      return new SqliteUsageStore(db, oldestKept);
    },
    purges: true,
    close: async () => {
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

let server: RedisServer | null = null;
before(async () => {
  if (redisAvailable) server = await startRedis();
});
after(async () => server?.close());

const connect = (): Redis => new Redis(server!.url, { maxRetriesPerRequest: 1 });

if (redisAvailable) {
  usageStoreContract('redis', async () => {
    const admin = connect();
    await admin.flushdb();
    await admin.quit();
    const clients = [connect(), connect()];
    return {
      store: new RedisUsageStore(clients[0]!),
      reopen: async () => new RedisUsageStore(clients[1]!),
      another: async () => new RedisUsageStore(clients[1]!),
      purges: false,
      close: async () => void (await Promise.all(clients.map((c) => c.quit()))),
    };
  });

  test('redis: a day expires USAGE_KEEP_DAYS after it began, its tenants set with it', async (t) => {
    const client = connect();
    t.after(() => client.quit());
    await client.flushdb();
    const day = utcDay(Date.now());
    await new RedisUsageStore(client).add([{ tenant: 'team-a', day, counts: { pages: 1 } }]);
    const expected = Date.parse(`${day}T00:00:00Z`) / 1000 + 400 * 86_400;
    for (const key of [`pw:usage:${day}:team-a`, `pw:usage-tenants:${day}`]) {
      const at = Number(await client.call('EXPIRETIME', key));
      assert.equal(at, expected, key);
    }
  });
} else test('usage store on Redis', (t) => t.skip(REDIS_MISSING));

test("a UTC day is each millisecond's own, on both sides of midnight and before 1970", () => {
  const midnight = Date.parse('2026-11-29T00:00:00Z');
  for (const [ms, day] of [
    [midnight - 1, '2026-11-28'],
    [midnight, '2026-11-29'],
    [midnight + 86_399_999, '2026-11-29'],
    [midnight + 86_400_000, '2026-11-30'],
    [midnight - 1, '2026-11-28'],
    [-1, '1969-12-31'],
    [0, '1970-01-01'],
  ] as const)
    assert.equal(utcDay(ms), day, String(ms));
  assert.throws(() => utcDay(Number.NaN), RangeError);
});
