import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { Queue } from 'bullmq';
import { BullScheduler } from '../../src/monitors/bull-scheduler.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { MemoryMonitorStore } from '../../src/jobs/stores/monitor-state/memory-monitor-store.js';
import { monitorRecord, recordingLog, sleep, waitFor } from './helpers.js';

interface Fired {
  by: string;
  monitorId: string;
  scheduledFor: number;
}

const EVERY_SECOND = '* * * * * *';

interface Fleet {
  redis: RedisServer;
  store: MemoryMonitorStore;
  fired: Fired[];
  /**
   * A scheduler process: a worker firing `concurrency` ticks at once (0: none) recording them as `by`, each fire
   * taking `fireMs`.
   */
  process(by: string, concurrency?: number, fireMs?: number): BullScheduler;
}

/** Redis, a monitor store and the fires of every scheduler; the schedulers close before Redis stops. */
async function startFleet(t: TestContext): Promise<Fleet> {
  const redis = await startRedis();
  const store = new MemoryMonitorStore();
  const fired: Fired[] = [];
  const schedulers: BullScheduler[] = [];
  t.after(async () => {
    await Promise.all(schedulers.map((s) => s.close()));
    await redis.close();
  });
  const process = (by: string, concurrency = 2, fireMs = 0): BullScheduler => {
    const log = recordingLog();
    const scheduler = new BullScheduler({ redisUrl: redis.url, concurrency, store, log });
    scheduler.start((monitorId, scheduledFor) => {
      fired.push({ by, monitorId, scheduledFor });
      return sleep(fireMs);
    });
    schedulers.push(scheduler);
    return scheduler;
  };
  return { redis, store, fired, process };
}

function assertDistinctTicks(fired: Fired[]): void {
  const ticks = fired.map((f) => f.scheduledFor);
  assert.equal(new Set(ticks).size, ticks.length, `a tick fired twice: ${ticks.join(', ')}`);
  for (const tick of ticks) assert.equal(tick % 1000, 0, 'each scheduledFor is the tick, a whole second');
}

/** How many schedulers and pending ticks the queue holds for `monitorId`. */
async function queued(
  redis: RedisServer,
  monitorId: string,
): Promise<{ scheduler: boolean; delayed: number }> {
  const queue = new Queue('pw-monitor-ticks', { connection: { url: redis.url } });
  try {
    const scheduler = (await queue.getJobScheduler(monitorId)) !== undefined;
    const delayed = (await queue.getDelayed()).filter((job) => job.data?.monitorId === monitorId).length;
    return { scheduler, delayed };
  } finally {
    await queue.close();
  }
}

describe('BullScheduler', { skip: redisAvailable ? false : REDIS_MISSING }, () => {
  test('two workers fire each tick of a 1-second schedule once in total; pausing and deleting stop the ticks', async (t) => {
    const { redis, store, fired, process } = await startFleet(t);
    // A fire outlasts the interval and each worker fires one tick at a time: both workers take ticks.
    const one = process('one', 1, 1200);
    process('two', 1, 1200);
    const monitor = monitorRecord('m1', EVERY_SECOND);
    await store.put(monitor);
    await one.sync('m1', monitor);
    assert.ok(await waitFor(() => fired.length >= 4, 30_000), `fired ${fired.length} ticks`);
    assertDistinctTicks(fired);
    assert.ok(fired.some((f) => f.by === 'one') && fired.some((f) => f.by === 'two'), 'both workers fired');
    t.diagnostic(
      `ticks fired by one: ${fired.filter((f) => f.by === 'one').length}, two: ${fired.filter((f) => f.by === 'two').length}`,
    );
    assert.ok((await store.get('m1'))!.nextRunAt! > Date.now() - 5000, 'next run kept for display');
    // Syncing an unchanged schedule keeps its pending tick.
    await one.sync('m1', monitor);

    const paused = { ...monitor, status: 'paused' as const };
    await store.put(paused);
    await one.sync('m1', paused);
    assert.equal((await store.get('m1'))!.nextRunAt, null);
    assert.deepEqual(await queued(redis, 'm1'), { scheduler: false, delayed: 0 });
    await sleep(300); // a tick already taken finishes
    const atPause = fired.length;
    await sleep(2500);
    assert.equal(fired.length, atPause, 'no tick fires while paused');

    await store.put(monitor);
    await one.sync('m1', monitor);
    assert.ok(await waitFor(() => fired.length >= atPause + 2, 30_000), 'ticks again once resumed');
    await store.delete('m1');
    await one.sync('m1', null);
    assert.deepEqual(await queued(redis, 'm1'), { scheduler: false, delayed: 0 });
    await sleep(300);
    const atDelete = fired.length;
    await sleep(2500);
    assert.equal(fired.length, atDelete, 'no tick fires once deleted');
    assertDistinctTicks(fired);
  });

  test('ticks missed while every worker was down fire once when one starts', async (t) => {
    const { store, fired, process } = await startFleet(t);
    const api = process('api', 0);
    const monitor = monitorRecord('late', EVERY_SECOND);
    await store.put(monitor);
    await api.sync('late', monitor);
    const first = process('first');
    assert.ok(await waitFor(() => fired.length >= 1, 30_000), 'the first worker fired');
    await first.close();
    const downAt = Date.now();
    await sleep(4000); // at least three ticks pass with no worker
    const startedAt = Date.now();
    process('second');
    assert.ok(
      await waitFor(() => fired.filter((f) => f.by === 'second').length >= 3, 30_000),
      'the second fired',
    );
    const missed = fired.filter((f) => f.by === 'second' && f.scheduledFor < startedAt);
    const second = fired.filter((f) => f.by === 'second').map((f) => f.scheduledFor - startedAt);
    t.diagnostic(
      `down ${startedAt - downAt} ms; the second's ticks, ms after it started: ${second.join(', ')}`,
    );
    assert.equal(missed.length, 1, `missed ticks fired: ${missed.map((f) => f.scheduledFor).join(', ')}`);
    assert.ok(
      missed[0]!.scheduledFor <= downAt + 1000,
      'the one fired is the tick pending when it went down',
    );
    assertDistinctTicks(fired);
  });

  test('a tick of a monitor deleted without its schedule removes the schedule and fires nothing', async (t) => {
    const { redis, store, fired, process } = await startFleet(t);
    const scheduler = process('only');
    const monitor = monitorRecord('orphan', EVERY_SECOND);
    await store.put(monitor);
    await scheduler.sync('orphan', monitor);
    await store.delete('orphan');
    assert.ok(
      await waitFor(async () => !(await queued(redis, 'orphan')).scheduler, 30_000),
      'the next tick removed the schedule',
    );
    assert.deepEqual(await queued(redis, 'orphan'), { scheduler: false, delayed: 0 });
    assert.deepEqual(fired, []);
  });
});
