import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { nextTick } from '../../src/monitors/schedule.js';
import { StoreScheduler } from '../../src/monitors/store-scheduler.js';
import { MemoryMonitorStore } from '../../src/jobs/stores/monitor-state/memory-monitor-store.js';
import { SqliteMonitorStore } from '../../src/jobs/stores/monitor-state/sqlite-monitor-store.js';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';
import type { MonitorStore } from '../../src/jobs/stores/monitor-state/monitor-store.js';
import { distant, monitorRecord, recordingLog, sleep, waitFor } from './helpers.js';

interface Fired {
  monitorId: string;
  scheduledFor: number;
}

/** A scheduler on `store` whose fires are recorded in `fired`; closed after the test. */
function startScheduler(t: TestContext, store: MonitorStore, fired: Fired[], tickMs?: number) {
  const log = recordingLog();
  const scheduler = new StoreScheduler({ store, log, tickMs });
  scheduler.start((monitorId, scheduledFor) => {
    fired.push({ monitorId, scheduledFor });
    return Promise.resolve();
  });
  t.after(() => scheduler.close());
  return { scheduler, log };
}

const EVERY_SECOND = '* * * * * *';

/** A 1-second monitor stored with its next tick set, as a create does. */
async function everySecond(store: MonitorStore, id: string): Promise<void> {
  await store.put(monitorRecord(id, EVERY_SECOND, { nextRunAt: nextTick(EVERY_SECOND, 'UTC', Date.now()) }));
}

function assertDistinctTicks(fired: Fired[]): void {
  const ticks = fired.map((f) => f.scheduledFor);
  assert.equal(new Set(ticks).size, ticks.length, `a tick fired twice: ${ticks.join(', ')}`);
  for (const tick of ticks) assert.equal(tick % 1000, 0, 'each scheduledFor is a tick of the schedule');
}

describe('StoreScheduler', () => {
  test('a 1-second schedule fires once per tick', async (t) => {
    const store = new MemoryMonitorStore();
    // Ticks are counted from before the monitor is made: its first tick is the one after that moment, which
    // may be due by the time the scheduler starts (a second can turn in between).
    const started = Date.now();
    await everySecond(store, 'm1');
    const fired: Fired[] = [];
    const { scheduler } = startScheduler(t, store, fired);
    await sleep(3500);
    await scheduler.close();
    const ticksPassed = Math.floor(Date.now() / 1000) - Math.floor(started / 1000);
    assert.ok(fired.length >= 2, `fired ${fired.length} times in 3.5 s`);
    assert.ok(fired.length <= ticksPassed, `fired ${fired.length} times for ${ticksPassed} ticks`);
    assert.ok(fired.every((f) => f.monitorId === 'm1'));
    assertDistinctTicks(fired);
  });

  test('two schedulers on one store never fire the same tick twice', async (t) => {
    // Each call answers after a few ms, so that both schedulers read the same tick due before either moves it.
    const store = distant(new MemoryMonitorStore(), 20);
    await everySecond(store, 'a');
    await everySecond(store, 'b');
    const fired: Fired[] = [];
    // Short loops, so that both read the same due ticks again and again.
    const one = startScheduler(t, store, fired, 5).scheduler;
    const two = startScheduler(t, store, fired, 5).scheduler;
    await sleep(3500);
    await Promise.all([one.close(), two.close()]);
    for (const id of ['a', 'b']) {
      const mine = fired.filter((f) => f.monitorId === id);
      assert.ok(mine.length >= 2, `${id} fired ${mine.length} times in 3.5 s`);
      assertDistinctTicks(mine);
    }
  });

  test('a tick missed an hour ago fires once, then the next tick is in the future', async (t) => {
    const store = new MemoryMonitorStore();
    const hourAgo = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
    await store.put(monitorRecord('late', '* * * * *', { nextRunAt: hourAgo }));
    const fired: Fired[] = [];
    const started = Date.now();
    startScheduler(t, store, fired);
    assert.ok(await waitFor(() => fired.length > 0, 5000), 'the missed tick fired');
    await sleep(600);
    // A minute may turn while the test waits; that tick is the schedule's, not a missed one.
    const missed = fired.filter((f) => f.scheduledFor < started);
    assert.deepEqual(missed, [{ monitorId: 'late', scheduledFor: hourAgo }]);
    const next = (await store.get('late'))!.nextRunAt!;
    assert.ok(next > Date.now(), 'the next tick is after now');
    assert.equal(next % 60_000, 0, 'on a minute');
  });

  test('a paused monitor never fires; sync clears and sets its next tick', async (t) => {
    const store = new MemoryMonitorStore();
    await store.put(
      monitorRecord('paused', EVERY_SECOND, { status: 'paused', nextRunAt: Date.now() - 5000 }),
    );
    await everySecond(store, 'pausing');
    const fired: Fired[] = [];
    const { scheduler } = startScheduler(t, store, fired);
    await scheduler.sync('paused', await store.get('paused'));
    assert.equal((await store.get('paused'))!.nextRunAt, null);

    const record = (await store.get('pausing'))!;
    await store.put({ ...record, status: 'paused' });
    await scheduler.sync('pausing', await store.get('pausing'));
    assert.equal((await store.get('pausing'))!.nextRunAt, null);
    const firedBefore = fired.length; // at most the tick due while it was being paused
    await sleep(2500);
    assert.equal(fired.length, firedBefore, 'nothing fires while paused');
    assert.ok(!fired.some((f) => f.monitorId === 'paused'));

    await store.put({ ...(await store.get('pausing'))!, status: 'active' });
    await scheduler.sync('pausing', await store.get('pausing'));
    const resumed = (await store.get('pausing'))!.nextRunAt!;
    assert.ok(resumed > Date.now() - 1000 && resumed % 1000 === 0, 'resumed on the next tick');
    assert.ok(await waitFor(() => fired.length > firedBefore, 5000), 'fires again once resumed');
  });

  test('sync of a new monitor sets its next tick, and of a changed schedule moves it', async (t) => {
    const store = new MemoryMonitorStore();
    const { scheduler } = startScheduler(t, store, []);
    await store.put(monitorRecord('new', '0 9 * * *', { timezone: 'Europe/Paris' }));
    await scheduler.sync('new', await store.get('new'));
    const now = Date.now();
    assert.equal((await store.get('new'))!.nextRunAt, nextTick('0 9 * * *', 'Europe/Paris', now));

    await store.put({ ...(await store.get('new'))!, cron: '30 17 * * 5' });
    await scheduler.sync('new', await store.get('new'));
    assert.equal((await store.get('new'))!.nextRunAt, nextTick('30 17 * * 5', 'Europe/Paris', Date.now()));
    await scheduler.sync('gone', null);
  });

  test('a failing fire and a failing store are logged with the reason, and the loop goes on', async (t) => {
    const store = distant(new MemoryMonitorStore());
    await everySecond(store, 'boom');
    const log = recordingLog();
    const scheduler = new StoreScheduler({ store, log, tickMs: 50 });
    let calls = 0;
    scheduler.start(() => {
      calls++;
      return Promise.reject(new Error('queue is full'));
    });
    t.after(() => scheduler.close());
    assert.ok(await waitFor(() => calls >= 2, 6000), 'fired again after a failure');
    const failed = log.lines.find((l) => l.message === 'scheduled monitor check failed to start');
    assert.deepEqual(
      failed && { level: failed.level, reason: (failed.fields as { reason: string }).reason },
      {
        level: 'error',
        reason: 'queue is full',
      },
    );

    store.failing = true;
    await sleep(400);
    const down = log.lines.filter((l) => l.message.startsWith('monitor store unavailable'));
    assert.equal(down.length, 1, 'logged once while the store is away');
    assert.equal((down[0]!.fields as { reason: string }).reason, 'store is away');
    store.failing = false;
    const before = calls;
    assert.ok(await waitFor(() => calls > before, 5000), 'fires again once the store answers');
  });

  test('on the SQLite file, ticks missed while the process was down fire once after a restart', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-monitors-'));
    let db = SqliteDb.open(dir);
    t.after(async () => {
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    const fired: Fired[] = [];
    const before = startScheduler(t, new SqliteMonitorStore(db), fired).scheduler;
    await everySecond(new SqliteMonitorStore(db), 'durable');
    assert.ok(await waitFor(() => fired.length >= 1, 5000), 'fired before the stop');
    await before.close();
    const firedAtStop = fired.length;
    await db.close();
    await sleep(3200); // three ticks or more pass while the process is down
    db = SqliteDb.open(dir);
    const restartedAt = Date.now();
    // Two loops on the reopened file: the missed tick is still fired once.
    startScheduler(t, new SqliteMonitorStore(db), fired, 5);
    startScheduler(t, new SqliteMonitorStore(db), fired, 5);
    assert.ok(await waitFor(() => fired.filter((f) => f.scheduledFor > restartedAt).length >= 2, 10_000));
    const missed = fired.slice(firedAtStop).filter((f) => f.scheduledFor < restartedAt);
    assert.equal(missed.length, 1, `missed ticks fired: ${missed.map((f) => f.scheduledFor).join(', ')}`);
    assertDistinctTicks(fired);
  });
});
