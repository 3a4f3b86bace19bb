import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { HostThrottle } from '../../src/crawl/throttle.js';
import { BullFleet } from '../../src/jobs/fleet.js';
import { RedisPace } from '../../src/jobs/stores/redis-crawl-state.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';

let server: RedisServer | null = null;
let redis: Redis | null = null;
before(async () => {
  if (!redisAvailable) return;
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});
after(async () => {
  redis?.disconnect();
  await server?.close();
});

test(
  "a host's pace is the fleet's: one worker's 429s slow every worker down, and successes anywhere win it back",
  { skip: redisAvailable ? false : REDIS_MISSING },
  async () => {
    // Two workers' throttles for one crawl, as two processes hold them.
    const a = new HostThrottle(8, Date.now, new RedisPace(redis!, 'job-pace'));
    const b = new HostThrottle(8, Date.now, new RedisPace(redis!, 'job-pace'));
    const host = 'site.test:80';
    a.answered(host, 429, null);
    await a.synced();
    a.answered(host, 503, null);
    await a.synced();
    assert.equal(a.inFlightFor(host), 2);
    // b has seen only successes; its next answer brings it the host's pace.
    b.answered(host, 200, null);
    await b.synced();
    assert.equal(b.inFlightFor(host), 2, "worker b follows the host's pace");
    assert.ok(b.addedDelayFor(host) > 0);
    // Five successes in a row, from either worker, give one request back.
    for (let i = 0; i < 4; i++) {
      (i % 2 ? a : b).answered(host, 200, null);
      await Promise.all([a.synced(), b.synced()]);
    }
    a.answered(host, 200, null);
    await a.synced();
    assert.equal(a.inFlightFor(host), 3);
    // A host one worker paused (most of its last 20 pages refused) is paused for the other before its next fetch.
    for (let i = 0; i < 20; i++) a.settled(host, 403);
    assert.equal(a.isPaused(host), true);
    await a.synced();
    assert.equal(b.isPaused(host), false, 'worker b has had no answer of the host since');
    assert.equal(await b.isPausedAnywhere(host), true, 'worker b does not fetch the paused host again');
    assert.equal(b.isPaused(host), true);
    // Two workers that each saw only half of a refusing host's pages pause it together.
    const c = new HostThrottle(8, Date.now, new RedisPace(redis!, 'job-halves'));
    const d = new HostThrottle(8, Date.now, new RedisPace(redis!, 'job-halves'));
    for (let i = 0; i < 11; i++) {
      c.settled(host, 403);
      d.settled(host, 403);
    }
    await Promise.all([c.synced(), d.synced()]);
    assert.equal(c.isPaused(host) && d.isPaused(host), true, 'eleven refusals each: paused for both');
    // Another crawl's pace of the same host is its own.
    const other = new HostThrottle(8, Date.now, new RedisPace(redis!, 'job-other'));
    other.answered(host, 200, null);
    await other.synced();
    assert.equal(other.inFlightFor(host), 8);
  },
);

test(
  'exclusive: work under one key runs in one process of the fleet at a time; other keys do not wait',
  { skip: redisAvailable ? false : REDIS_MISSING },
  async () => {
    const options = {
      redisUrl: server!.url,
      concurrency: 0,
      shares: 1,
      stalledMs: 30_000,
      leaseMs: 60_000,
      hostConcurrency: 4,
      log: { debug() {}, info() {}, warn() {}, error() {} },
    };
    const fleets = [new BullFleet(options), new BullFleet(options)];
    try {
      let inside = 0;
      let most = 0;
      const turn = (fleet: BullFleet, key: string) =>
        fleet.exclusive(key, async () => {
          most = Math.max(most, ++inside);
          await new Promise((resolve) => setTimeout(resolve, 30));
          inside--;
        });
      await Promise.all([1, 2, 3, 4].map((i) => turn(fleets[i % 2]!, 'agent-thread:t1')));
      assert.equal(most, 1, 'one holder at a time across both processes');
      most = 0;
      await Promise.all([turn(fleets[0]!, 'agent-thread:a'), turn(fleets[1]!, 'agent-thread:b')]);
      assert.equal(most, 2, 'two threads at once');
      await assert.rejects(
        fleets[0]!.exclusive('k', () => Promise.reject(new Error('failed inside'))),
        /failed inside/,
      );
      await fleets[1]!.exclusive('k', async () => undefined); // the failed holder's lease was given back
    } finally {
      await Promise.all(fleets.map((f) => f.close()));
    }
  },
);
