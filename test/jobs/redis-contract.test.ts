import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { RedisBudget } from '../../src/jobs/stores/redis-crawl-state.js';
import { RedisFrontier } from '../../src/jobs/stores/redis-frontier.js';
import { RedisPageStore } from '../../src/jobs/stores/redis-page-store.js';
import { RedisJobStore } from '../../src/jobs/stores/redis-job-store.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { frontierContract, jobStoreContract, pageStoreContract } from './contract.js';
import { RedisProfileStore } from '../../src/jobs/stores/browser-state/redis-profile-store.js';
import { SECRET_VALUE, acmeState, profileStoreContract } from './profile-contract.js';
import { Profiles } from '../../src/jobs/stores/browser-state/profile-store.js';
import { RedisSessionStore } from '../../src/jobs/stores/browser-state/redis-session-store.js';
import { sessionStoreContract } from './session-contract.js';
import { RedisScrapeOriginStore } from '../../src/jobs/stores/browser-state/redis-scrape-origin-store.js';
import { scrapeOriginContract } from './scrape-origin-contract.js';
import { RedisMonitorStore } from '../../src/jobs/stores/monitor-state/redis-monitor-store.js';
import { monitorStoreContract } from './monitor-contract.js';

/** The same contract suites as the embedded adapters, against a real redis-server (scripts/ensure-redis.sh). */

let server: RedisServer | null = null;
before(async () => {
  if (redisAvailable) server = await startRedis();
});
after(async () => server?.close());

const connect = (): Redis => new Redis(server!.url, { maxRetriesPerRequest: 1, lazyConnect: false });

/** A store on an emptied Redis; `reopen` is another connection (another process of the fleet, or a restart). */
const onEmptyRedis =
  <T>(build: (client: Redis) => T) =>
  async () => {
    const admin = connect();
    await admin.flushdb();
    await admin.quit();
    const clients = [connect(), connect()];
    return {
      store: build(clients[0]!),
      reopen: async () => build(clients[1]!),
      close: async () => void (await Promise.all(clients.map((c) => c.quit()))),
    };
  };

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
      // The keys a version without job owners wrote: a hash without `owner`, the running and listed indexes.
      legacy: async (jobs) => {
        const client = connect();
        for (const j of jobs) {
          await client.hset(`pw:job:${j.id}`, {
            ...{ id: j.id, kind: j.kind, state: 'scraping', request: JSON.stringify(j.request), listed: '1' },
            ...{ total: '0', completed: '0', error: '', result: '', interruptions: '0', suspended: '0' },
            ...{ createdAt: j.createdAt, updatedAt: j.createdAt, expiresAt: j.createdAt + ttlMs },
          });
          await client.sadd('pw:jobs:running', j.id);
          await client.sadd('pw:jobs:active', j.id);
          await client.zadd('pw:jobs:listed', j.createdAt, j.id);
          await client.zadd(`pw:jobs:listed:${j.kind}`, j.createdAt, j.id);
        }
        await store.close();
        store = new RedisJobStore(client, ttlMs);
        return store;
      },
      close: () => store.close(),
    };
  });
  frontierContract('redis', async () => {
    const admin = connect();
    await admin.flushdb();
    await admin.quit();
    const clients: Redis[] = [];
    const open = (): RedisFrontier => {
      const client = connect();
      clients.push(client);
      return new RedisFrontier(client, 'job-1');
    };
    let frontier = open();
    return {
      frontier,
      // Another worker (or this one restarted) on the same job: in-flight items are found and requeued.
      reopen: async () => {
        frontier.close();
        frontier = open();
        return frontier;
      },
      close: async () => {
        frontier.close();
        await Promise.all(clients.map((c) => c.quit()));
      },
    };
  });

  test("redis frontier: a dead worker's in-flight item is taken over once its lease runs out", async () => {
    const [a, b] = [connect(), connect()];
    const dead = new RedisFrontier(a, 'job-lease', 200);
    await dead.add([{ url: 'https://a.test/x', depth: 0, pagination: false }]);
    assert.equal((await dead.next())?.url, 'https://a.test/x');
    dead.close(); // the worker dies: nobody renews its lease
    const alive = new RedisFrontier(b, 'job-lease', 200);
    assert.equal(await alive.next(), undefined, 'still leased');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const taken = await alive.next();
    assert.equal(taken?.url, 'https://a.test/x');
    await alive.complete(taken!);
    assert.deepEqual(await alive.stats(), { queued: 0, delayed: 0, inFlight: 0, discovered: 1 });
    alive.close();
    await Promise.all([a.quit(), b.quit()]);
  });

  test('redis frontier with a budget: the page is claimed with the item, robots refusals give it back', async () => {
    const client = connect();
    const budget = new RedisBudget(client, 'job-budget', 1);
    const frontier = new RedisFrontier(client, 'job-budget', 60_000, budget);
    await frontier.add([
      { url: 'https://a.test/1', depth: 0, pagination: false },
      { url: 'https://a.test/2', depth: 0, pagination: false },
      { url: 'https://a.test/3', depth: 0, pagination: false },
    ]);
    const one = await frontier.next();
    await budget.skip(one!.url); // robots.txt refused it: the claim goes back
    const two = await frontier.next(one);
    assert.equal(await budget.take(two!.url), true, 'claimed with the item');
    const three = await frontier.next(two);
    assert.equal(await budget.take(three!.url), false, 'the limit of 1 is reached');
    assert.deepEqual(await client.smembers('pw:job:job-budget:claimed'), ['https://a.test/2']);
    frontier.close();
    await client.quit();
  });

  pageStoreContract('redis', async () => {
    const clients = [connect(), connect()];
    return {
      pages: new RedisPageStore(clients[0]!, 60_000),
      reopen: async () => new RedisPageStore(clients[1]!, 60_000),
      close: async () => void (await Promise.all(clients.map((c) => c.quit()))),
    };
  });

  test('redis profiles: the stored value holds no cookie value when PROFILE_SECRET is set', async () => {
    const client = connect();
    await new Profiles(new RedisProfileStore(client), { ttlMs: 60_000, secret: 's' }).save(
      'team-a',
      'raw',
      acmeState(),
    );
    const raw = await client.get('pw:profile:team-a:raw');
    assert.ok(raw !== null && !raw.includes(SECRET_VALUE) && !raw.includes('ls-value'));
    await client.quit();
  });

  test("redis profiles stored before tenants (no owner, a key by name) are default's, sealed as they were", async () => {
    const client = connect();
    await client.flushdb();
    // What a store from before tenants holds: a default profile written now has the same key and seal.
    const before = new Profiles(new RedisProfileStore(client), { ttlMs: 60_000, secret: 's' });
    await before.save('default', 'legacy', acmeState());
    const record = JSON.parse((await client.get('pw:profile:legacy'))!) as Record<string, unknown>;
    delete record.owner;
    await client.set('pw:profile:legacy', JSON.stringify(record), 'PX', 60_000);
    assert.deepEqual(await client.smembers('pw:profiles'), ['legacy']);
    const profiles = new Profiles(new RedisProfileStore(client), { ttlMs: 60_000, secret: 's' });
    assert.equal((await profiles.state('default', 'legacy'))?.cookies[0]?.value, SECRET_VALUE);
    assert.equal(await profiles.state('team-a', 'legacy'), null);
    assert.deepEqual(
      (await profiles.list(null)).map((p) => [p.name, p.tenant]),
      [['legacy', 'default']],
    );
    assert.deepEqual(await profiles.list('team-a'), []);
    await client.quit();
  });

  profileStoreContract(
    'redis',
    onEmptyRedis((client) => new RedisProfileStore(client)),
  );

  sessionStoreContract(
    'redis',
    onEmptyRedis((client) => new RedisSessionStore(client)),
  );

  scrapeOriginContract(
    'redis',
    onEmptyRedis((client) => new RedisScrapeOriginStore(client)),
  );

  monitorStoreContract(
    'redis',
    onEmptyRedis((client) => new RedisMonitorStore(client)),
  );

  test('redis monitors: delete and purgeChecks leave no key of what they removed', async () => {
    const client = connect();
    await client.flushdb();
    const store = new RedisMonitorStore(client);
    const at = Date.now();
    await store.put({
      id: 'keys',
      owner: 'default',
      name: 'keys',
      status: 'active',
      config: {},
      cron: '* * * * *',
      timezone: 'UTC',
      nextRunAt: at,
      lastRunAt: null,
      currentCheckId: null,
      lastCheckSummary: null,
      retentionDays: 1,
      createdAt: at,
      updatedAt: at,
    });
    const summary = { totalPages: 1, same: 0, changed: 1, new: 0, removed: 0, error: 0 };
    for (const [id, createdAt] of [
      ['old', at - 1000],
      ['new', at],
    ] as const) {
      await store.putCheck({
        ...{ id, monitorId: 'keys', status: 'completed', trigger: 'manual', summary, targetResults: [] },
        ...{ scheduledFor: null, startedAt: null, finishedAt: null, notificationStatus: null, error: null },
        ...{ createdAt, updatedAt: createdAt },
      });
      const detail = { diff: '+x' };
      await store.addPages(id, [
        {
          id: `${id}-p`,
          checkId: id,
          targetId: 't',
          url: 'https://a.test/',
          status: 'changed',
          detail,
          createdAt,
        },
      ]);
    }
    await store.putSnapshot('keys', 't|https://a.test/', { markdown: 'x', scrapeId: 's', at });
    assert.equal(await store.purgeChecks('keys', at), 1);
    assert.deepEqual(await client.keys('pw:monitor-check:old*'), []);
    assert.ok((await client.keys('pw:monitor-check:new*')).length > 0);
    assert.equal(await store.delete('keys'), true);
    assert.deepEqual(await client.keys('pw:monitor*'), []);
    await client.quit();
  });

  test("redis monitors stored without an owner are default's, and counted once", async (t) => {
    const client = connect();
    t.after(() => client.quit());
    await client.flushdb();
    const at = Date.now();
    const legacy = {
      id: 'old',
      name: 'old',
      status: 'paused',
      config: {},
      cron: '0 9 * * *',
      timezone: 'UTC',
    };
    const body = {
      ...legacy,
      ...{
        nextRunAt: null,
        lastRunAt: null,
        currentCheckId: null,
        lastCheckSummary: null,
        retentionDays: 30,
      },
      ...{ createdAt: at, updatedAt: at },
    };
    await client.hset('pw:monitor:old', { body: JSON.stringify(body), status: 'paused', nextRunAt: '' });
    await client.zadd('pw:monitors', at, 'old');
    const store = new RedisMonitorStore(client);
    assert.equal((await store.get('old'))?.owner, 'default');
    assert.equal(await store.count('default'), 1);
    assert.equal(await new RedisMonitorStore(client).count('default'), 1, 'indexed once, counted once');
    assert.equal(await store.delete('old'), true);
    assert.equal(await store.count('default'), 0);
  });
} else {
  console.log(`# !!! REDIS CONTRACT TESTS SKIPPED: ${REDIS_MISSING}`);
}
