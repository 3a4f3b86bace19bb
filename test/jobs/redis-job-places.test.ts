import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { LimitReachedError } from '../../src/errors.js';
import { RedisJobPlaces } from '../../src/jobs/stores/redis-job-places.js';
import { RedisJobStore } from '../../src/jobs/stores/redis-job-store.js';
import { loadConfig } from '../../src/config/config.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';

/**
 * The fleet's count of a tenant's jobs not ended, against a real redis-server: each start is counted with the
 * ones before it, a job frees its place once its record says it ended, and a start whose job was not stored
 * gives its place back. (test/tenants/fair-share.test.ts drives it through two API processes.)
 */

let server: RedisServer | null = null;
before(async () => {
  if (redisAvailable) server = await startRedis();
});
after(async () => server?.close());

const limits = { ...loadConfig({}).tenants.limits('t'), jobs: 2, agentRuns: 1 };

describe('RedisJobPlaces', { skip: redisAvailable ? false : REDIS_MISSING }, () => {
  test('counts agent runs and jobs when asked, names the narrower limit first, frees places of ended jobs', async () => {
    const redis = new Redis(server!.url, { maxRetriesPerRequest: 1 });
    await redis.flushdb();
    const store = new RedisJobStore(redis, 60_000);
    const places = new RedisJobPlaces(redis);
    const create = (id: string, kind: 'crawl' | 'agent') => () =>
      store.create({ id, kind, owner: 't', request: {}, listed: true, total: 0 });
    const start = (id: string, kind: 'crawl' | 'agent') =>
      places.admit('t', id, kind === 'agent' ? ['agentRuns', 'jobs'] : ['jobs'], limits, create(id, kind));
    const refusal = async (id: string, kind: 'crawl' | 'agent'): Promise<LimitReachedError> => {
      const err = await start(id, kind).then(
        () => assert.fail(`${id} was admitted`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof LimitReachedError, String(err));
      assert.equal(err.retryAfterSeconds, 30);
      assert.equal(await store.get(id), null, 'a refused job is never stored');
      return err;
    };

    await start('agent-1', 'agent');
    assert.match((await refusal('agent-2', 'agent')).message, /MAX_AGENT_RUNS_PER_TENANT=1/);
    await start('crawl-1', 'crawl');
    assert.match((await refusal('crawl-2', 'crawl')).message, /2 jobs not ended.*MAX_JOBS_PER_TENANT=2/);
    assert.match((await refusal('agent-3', 'agent')).message, /MAX_AGENT_RUNS_PER_TENANT=1/);
    // Other tenants count apart.
    await places.admit('u', 'of-u', ['jobs'], limits, () => Promise.resolve(null));

    await store.finish('agent-1', 'completed');
    await assert.rejects(
      places.admit('t', 'agent-4', ['agentRuns', 'jobs'], limits, () =>
        Promise.reject(new Error('disk full')),
      ),
      /disk full/,
    );
    await start('crawl-3', 'crawl'); // the failed start gave its place back
    await refusal('crawl-4', 'crawl');
    await store.finish('crawl-3', 'cancelled');
    // A place taken for a job not yet stored is held (its creation is under way in another process).
    await places.admit('t', 'being-created', ['jobs'], limits, () => Promise.resolve(null));
    await refusal('crawl-5', 'crawl');
    await redis.quit();
  });

  test('simultaneous starts through several connections: exactly the limit admitted', async () => {
    const admin = new Redis(server!.url, { maxRetriesPerRequest: 1 });
    await admin.flushdb();
    const connections = Array.from({ length: 4 }, () => new Redis(server!.url, { maxRetriesPerRequest: 1 }));
    const answers = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => {
        const redis = connections[i % connections.length]!;
        const store = new RedisJobStore(redis, 60_000);
        return new RedisJobPlaces(redis).admit('t', `job-${i}`, ['jobs'], limits, () =>
          store.create({ id: `job-${i}`, kind: 'crawl', owner: 't', request: {}, listed: true, total: 0 }),
        );
      }),
    );
    assert.equal(answers.filter((a) => a.status === 'fulfilled').length, 2);
    assert.equal((await new RedisJobStore(admin, 60_000).active({ owner: 't' })).length, 2);
    await Promise.all([admin, ...connections].map((c) => c.quit()));
  });
});
