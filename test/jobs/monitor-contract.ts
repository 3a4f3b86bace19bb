import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { updateMonitor } from '../../src/jobs/stores/monitor-state/monitor-store.js';
import type {
  CheckPage,
  CheckRecord,
  MonitorRecord,
  MonitorStore,
  PageStatus,
} from '../../src/jobs/stores/monitor-state/monitor-store.js';

export interface MonitorStoreHarness {
  store: MonitorStore;
  /** The process restarts (or another process of the fleet reads): a durable adapter finds what it stored. */
  reopen?: () => Promise<MonitorStore>;
  close(): Promise<void>;
}

const T = 1_700_000_000_000;

const monitor = (id: string, createdAt: number, extra: Partial<MonitorRecord> = {}): MonitorRecord => ({
  id,
  owner: 'key-0123456789ab',
  name: `watch ${id}`,
  status: 'active',
  config: { targets: [], webhook: { url: 'http://127.0.0.1:1/hook', headers: {} }, goal: null, judge: false },
  cron: '*/5 * * * *',
  timezone: 'Europe/Paris',
  nextRunAt: null,
  lastRunAt: null,
  currentCheckId: null,
  lastCheckSummary: null,
  retentionDays: 30,
  createdAt,
  updatedAt: createdAt,
  ...extra,
});

const SUMMARY = { totalPages: 3, same: 1, changed: 1, new: 1, removed: 0, error: 0 };

const check = (
  id: string,
  monitorId: string,
  createdAt: number,
  extra: Partial<CheckRecord> = {},
): CheckRecord => ({
  id,
  monitorId,
  status: 'completed',
  trigger: 'scheduled',
  scheduledFor: createdAt,
  startedAt: createdAt + 5,
  finishedAt: createdAt + 900,
  summary: SUMMARY,
  targetResults: [{ targetId: 't1', pages: 3 }, []],
  notificationStatus: { webhook: 'delivered', email: null },
  error: null,
  createdAt,
  updatedAt: createdAt + 900,
  ...extra,
});

const page = (checkId: string, n: number, status: PageStatus): CheckPage => ({
  id: `${checkId}-p${n}`,
  checkId,
  targetId: 't1',
  url: `https://a.test/${n}`,
  status,
  detail: { diff: status === 'changed' ? `-old ${n}\n+new ${n}` : null, tags: [], judgment: null },
  createdAt: T + n,
});

const ids = (records: { id: string }[]): string[] => records.map((r) => r.id);

/** The monitor store's contract (monitor-store.ts), run against every adapter. */
export function monitorStoreContract(name: string, make: () => Promise<MonitorStoreHarness>): void {
  describe(`MonitorStore contract: ${name}`, () => {
    test('put replaces, get answers the newest put, list pages oldest first with the total', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      assert.equal(await s.get('none'), null);
      assert.deepEqual(await s.list(null, 0, 10), { monitors: [], total: 0 });
      for (const [i, id] of ['m3', 'm1', 'm4', 'm2'].entries())
        await s.put(monitor(id, T + [3, 1, 4, 2][i]!));
      const updated = monitor('m2', T + 2, {
        name: 'renamed',
        status: 'paused',
        lastRunAt: T + 50,
        currentCheckId: 'c9',
        lastCheckSummary: SUMMARY,
        updatedAt: T + 60,
      });
      await s.put(updated);
      assert.deepEqual(await s.get('m2'), updated);
      assert.deepEqual(await s.get('m1'), monitor('m1', T + 1));
      const first = await s.list(null, 0, 2);
      assert.deepEqual(ids(first.monitors), ['m1', 'm2']);
      assert.equal(first.total, 4);
      assert.deepEqual(first.monitors[1], updated);
      assert.deepEqual(ids((await s.list(null, 2, 2)).monitors), ['m3', 'm4']);
      assert.deepEqual(await s.list(null, 4, 2), { monitors: [], total: 4 });
      assert.deepEqual((await s.list(null, 1, 0)).monitors, []);
    });

    test('replaceIf is a compare-and-set; updateMonitor keeps the fields of writers changing others at once', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      const m = monitor('cas', T + 1, { status: 'active', nextRunAt: T + 100 });
      await s.put(m);
      const stale = { ...m, name: 'old read' };
      assert.equal(await s.replaceIf(stale, { ...m, name: 'lost' }), false);
      assert.equal((await s.get('cas'))?.name, m.name);
      // A tick advanced since the read makes the read stale too (Redis keeps the tick beside the record).
      assert.equal(await s.advance('cas', T + 100, T + 200), true);
      assert.equal(await s.replaceIf(m, { ...m, name: 'lost' }), false);
      const now = (await s.get('cas'))!;
      assert.equal(await s.replaceIf(now, { ...now, name: 'won', status: 'paused', nextRunAt: null }), true);
      assert.deepEqual(await s.get('cas'), { ...now, name: 'won', status: 'paused', nextRunAt: null });
      assert.deepEqual(ids(await s.due(T + 10_000)), []);
      // A PATCH and a check finishing, interleaved: each one's fields survive.
      await Promise.all([
        updateMonitor(s, 'cas', () => ({ name: 'patched', retentionDays: 7 })),
        updateMonitor(s, 'cas', () => ({ lastRunAt: T + 300, lastCheckSummary: SUMMARY })),
        updateMonitor(s, 'cas', (cur) => ({ currentCheckId: cur.currentCheckId === null ? 'c1' : null })),
      ]);
      const merged = (await s.get('cas'))!;
      assert.equal(merged.name, 'patched');
      assert.equal(merged.retentionDays, 7);
      assert.equal(merged.lastRunAt, T + 300);
      assert.deepEqual(merged.lastCheckSummary, SUMMARY);
      assert.equal(merged.currentCheckId, 'c1');
      assert.equal(await updateMonitor(s, 'none', () => ({ name: 'x' })), null);
    });

    test("count: an owner's monitors now; a delete frees its slot; the owner is kept through put and get", async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      assert.equal(await s.count('key-a'), 0);
      await s.put(monitor('a1', T + 1, { owner: 'key-a' }));
      await s.put(monitor('a2', T + 2, { owner: 'key-a' }));
      await s.put(monitor('b1', T + 3, { owner: 'key-b' }));
      await s.put(monitor('d1', T + 4, { owner: 'default' }));
      assert.deepEqual(
        [await s.count('key-a'), await s.count('key-b'), await s.count('default'), await s.count('key-c')],
        [2, 1, 1, 0],
      );
      await s.put(monitor('a2', T + 2, { owner: 'key-a', name: 'renamed', status: 'paused' }));
      assert.equal(await s.count('key-a'), 2, 'an update is no new monitor');
      assert.equal((await s.get('a2'))?.owner, 'key-a');
      assert.deepEqual(
        (await s.list(null, 0, 10)).monitors.map((m) => m.owner),
        ['key-a', 'key-a', 'key-b', 'default'],
      );
      assert.equal(await s.delete('a1'), true);
      assert.equal(await s.count('key-a'), 1);
      assert.equal(await s.delete('a1'), false);
      assert.equal(await s.count('key-a'), 1);
      assert.equal(await s.count('key-b'), 1, "another owner's count is untouched");
    });

    test("list(owner): that owner's monitors oldest first, paged, with that owner's total", async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      for (const [id, at, owner] of [
        ['b2', 5, 'key-b'],
        ['a3', 4, 'key-a'],
        ['a1', 1, 'key-a'],
        ['b1', 2, 'key-b'],
        ['a2', 3, 'key-a'],
      ] as const)
        await s.put(monitor(id, T + at, { owner }));
      const other = h.reopen ? await h.reopen() : s;
      assert.deepEqual(ids((await other.list('key-a', 0, 10)).monitors), ['a1', 'a2', 'a3']);
      assert.deepEqual(await other.list('key-c', 0, 10), { monitors: [], total: 0 });
      const page = await other.list('key-a', 1, 1);
      assert.deepEqual([ids(page.monitors), page.total], [['a2'], 3]);
      assert.deepEqual(await other.list('key-b', 2, 5), { monitors: [], total: 2 });
      assert.equal((await other.list(null, 0, 10)).total, 5);
      assert.equal(await other.delete('a2'), true);
      const after = await other.list('key-a', 0, 10);
      assert.deepEqual([ids(after.monitors), after.total], [['a1', 'a3'], 2]);
    });

    test('delete removes the monitor with its checks, their pages and its snapshots', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      for (const id of ['gone', 'kept']) {
        await s.put(monitor(id, T, { nextRunAt: T }));
        await s.putCheck(check(`${id}-c1`, id, T + 1));
        await s.putCheck(check(`${id}-c2`, id, T + 2, { status: 'failed', error: 'boom' }));
        await s.addPages(`${id}-c1`, [page(`${id}-c1`, 0, 'new'), page(`${id}-c1`, 1, 'same')]);
        await s.addPages(`${id}-c2`, [page(`${id}-c2`, 0, 'error')]);
        await s.putSnapshot(id, 't1|https://a.test/0', { markdown: '# A', scrapeId: 'sc1', at: T });
      }
      assert.equal(await s.delete('gone'), true);
      assert.equal(await s.get('gone'), null);
      assert.deepEqual(await s.checks('gone', 0, 10), { checks: [], total: 0 });
      assert.deepEqual(await s.checks('gone', 0, 10, 'failed'), { checks: [], total: 0 });
      assert.equal(await s.check('gone', 'gone-c1'), null);
      assert.deepEqual(await s.pages('gone-c1', 0, 10), { pages: [], total: 0 });
      assert.deepEqual(await s.pages('gone-c2', 0, 10, 'error'), { pages: [], total: 0 });
      assert.equal(await s.snapshot('gone', 't1|https://a.test/0'), null);
      assert.deepEqual(await s.snapshotKeys('gone', ''), []);
      assert.deepEqual(await s.due(T + 10), [await s.get('kept')]);
      assert.deepEqual(await s.list(null, 0, 10), {
        monitors: [monitor('kept', T, { nextRunAt: T })],
        total: 1,
      });
      assert.equal(await s.delete('gone'), false, 'already deleted');
      // A check that was running writes after the delete: deleting again sweeps what it left.
      await s.putCheck(check('late', 'gone', T + 3));
      await s.addPages('late', [page('late', 0, 'changed')]);
      await s.putSnapshot('gone', 't1|https://a.test/0', { markdown: '# B', scrapeId: 'sc2', at: T });
      assert.equal(await s.delete('gone'), false);
      assert.deepEqual(await s.checks('gone', 0, 10), { checks: [], total: 0 });
      assert.deepEqual(await s.pages('late', 0, 10), { pages: [], total: 0 });
      assert.deepEqual(await s.snapshotKeys('gone', ''), []);

      assert.equal((await s.checks('kept', 0, 10)).total, 2);
      assert.equal((await s.pages('kept-c1', 0, 10)).total, 2);
      assert.deepEqual(await s.snapshotKeys('kept', 't1|'), ['t1|https://a.test/0']);
    });

    test('due answers active monitors at or past their tick; advance is a compare-and-set', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      const now = T + 10_000;
      await s.put(monitor('late', T + 1, { nextRunAt: now - 5000 }));
      await s.put(monitor('exact', T + 2, { nextRunAt: now }));
      await s.put(monitor('future', T + 3, { nextRunAt: now + 1 }));
      await s.put(monitor('paused', T + 4, { status: 'paused', nextRunAt: now - 5000 }));
      await s.put(monitor('unscheduled', T + 5, { nextRunAt: null }));
      assert.deepEqual(ids(await s.due(now)), ['late', 'exact']);
      assert.deepEqual(await s.due(now - 5001), []);

      // Two processes see the same tick due: exactly one advances it.
      const tries = await Promise.all([
        s.advance('late', now - 5000, now + 60_000),
        s.advance('late', now - 5000, now + 70_000),
      ]);
      assert.deepEqual(tries.filter(Boolean).length, 1);
      const advanced = await s.get('late');
      assert.ok(advanced?.nextRunAt === now + 60_000 || advanced?.nextRunAt === now + 70_000);
      assert.equal(advanced.name, 'watch late', 'only the tick changed');
      assert.equal(await s.advance('late', now - 5000, now + 80_000), false, 'a stale tick');
      assert.deepEqual(ids(await s.due(now)), ['exact']);
      assert.deepEqual(ids(await s.due(now + 70_000)), ['exact', 'future', 'late']);

      // A tick moved back into the past is due again; moved to null it never is.
      assert.equal(await s.advance('future', now + 1, now - 1), true);
      assert.deepEqual(ids(await s.due(now)), ['future', 'exact']);
      assert.equal(await s.advance('exact', now, null), true);
      assert.equal((await s.get('exact'))?.nextRunAt, null);
      assert.equal(await s.advance('exact', now, now), false, 'from no longer matches a null tick');
      assert.deepEqual(ids(await s.due(now + 1_000_000)), ['future', 'late']);

      // Paused and unscheduled monitors are never due, whatever their tick; resumed, they are again.
      assert.equal(await s.advance('paused', now - 5000, now - 4000), true);
      assert.ok(!ids(await s.due(now + 1_000_000)).includes('paused'));
      assert.equal(await s.advance('missing', now, now + 1), false);
      await s.put(monitor('paused', T + 4, { nextRunAt: now - 3000 }));
      assert.deepEqual(ids(await s.due(now)), ['paused', 'future']);
      await s.put(monitor('late', T + 1, { status: 'paused', nextRunAt: now - 5000 }));
      assert.ok(!ids(await s.due(now + 1_000_000)).includes('late'));
    });

    test("checks: newest first, one status, paged with the total; check reads only that monitor's", async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      await s.put(monitor('m', T));
      const statuses = ['completed', 'skipped_overlap', 'completed', 'running', 'completed'] as const;
      for (const [i, status] of statuses.entries())
        await s.putCheck(check(`c${i}`, 'm', T + i * 1000, { status }));
      await s.putCheck(check('other', 'm2', T + 99_000));
      const all = await s.checks('m', 0, 3);
      assert.deepEqual(ids(all.checks), ['c4', 'c3', 'c2']);
      assert.equal(all.total, 5);
      assert.deepEqual(all.checks[0], check('c4', 'm', T + 4000));
      assert.deepEqual(ids((await s.checks('m', 3, 3)).checks), ['c1', 'c0']);
      const completed = await s.checks('m', 1, 5, 'completed');
      assert.deepEqual(ids(completed.checks), ['c2', 'c0']);
      assert.equal(completed.total, 3);
      assert.deepEqual(await s.checks('m', 0, 5, 'queued'), { checks: [], total: 0 });
      assert.deepEqual(await s.checks('m', 0, 5, 'skipped_overlap'), {
        checks: [check('c1', 'm', T + 1000, { status: 'skipped_overlap' })],
        total: 1,
      });

      // Replaced: the running check finished; the status filters follow.
      const done = check('c3', 'm', T + 3000, { status: 'partial', error: 'one target failed' });
      await s.putCheck(done);
      assert.deepEqual(await s.check('m', 'c3'), done);
      assert.deepEqual(await s.checks('m', 0, 5, 'running'), { checks: [], total: 0 });
      assert.deepEqual(ids((await s.checks('m', 0, 5, 'partial')).checks), ['c3']);
      assert.equal((await s.checks('m', 0, 10)).total, 5);

      assert.equal(await s.check('m', 'other'), null, "another monitor's check");
      assert.equal(await s.check('m', 'missing'), null);
      assert.equal((await s.check('m2', 'other'))?.monitorId, 'm2');
    });

    test('pages: appended in order, read from skip, at most limit, one status, with that total', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      const statuses: PageStatus[] = [
        'new',
        'same',
        'changed',
        'same',
        'removed',
        'error',
        'changed',
        'same',
      ];
      const pages = statuses.map((status, i) => page('c1', i, status));
      await s.addPages('c1', pages.slice(0, 3));
      await s.addPages('c1', []);
      await s.addPages('c1', pages.slice(3));
      await s.addPages('c2', [page('c2', 0, 'same')]);
      assert.deepEqual(await s.pages('c1', 0, 100), { pages, total: 8 });
      assert.deepEqual(await s.pages('c1', 2, 3), { pages: pages.slice(2, 5), total: 8 });
      assert.deepEqual(await s.pages('c1', 7, 3), { pages: pages.slice(7), total: 8 });
      assert.deepEqual(await s.pages('c1', 9, 3), { pages: [], total: 8 });
      assert.deepEqual(await s.pages('c1', 0, 0), { pages: [], total: 8 });
      const same = [1, 3, 7].map((i) => pages[i]!);
      assert.deepEqual(await s.pages('c1', 0, 10, 'same'), { pages: same, total: 3 });
      assert.deepEqual(await s.pages('c1', 1, 1, 'same'), { pages: [same[1]!], total: 3 });
      assert.deepEqual(await s.pages('c1', 0, 10, 'changed'), { pages: [pages[2]!, pages[6]!], total: 2 });
      assert.deepEqual(await s.pages('c1', 0, 0, 'changed'), { pages: [], total: 2 });
      assert.deepEqual(await s.pages('c2', 0, 10, 'changed'), { pages: [], total: 0 });
      assert.deepEqual(await s.pages('none', 0, 10), { pages: [], total: 0 });
    });

    test('snapshots by (monitor, key): read, replace, delete, keys by prefix', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      const first = { markdown: '# Price\n\n10 €', scrapeId: 'sc1', at: T };
      assert.equal(await s.snapshot('m', 't1|https://a.test/'), null);
      await s.putSnapshot('m', 't1|https://a.test/', first);
      assert.deepEqual(await s.snapshot('m', 't1|https://a.test/'), first);
      const second = { markdown: '# Price\n\n12 €', scrapeId: 'sc2', at: T + 1000 };
      await s.putSnapshot('m', 't1|https://a.test/', second);
      assert.deepEqual(await s.snapshot('m', 't1|https://a.test/'), second);
      assert.equal(await s.snapshot('other', 't1|https://a.test/'), null);

      // Keys with glob and LIKE characters are matched literally.
      const keys = [
        't1|https://a.test/b',
        't1|https://a.test/a?x=*',
        't2|https://a.test/a',
        't1*|x',
        't1%_|y',
        '[t1]|z',
      ];
      for (const key of keys) await s.putSnapshot('m', key, first);
      await s.putSnapshot('other', 't1|https://b.test/', first);
      assert.deepEqual(await s.snapshotKeys('m', 't1|'), [
        't1|https://a.test/',
        't1|https://a.test/a?x=*',
        't1|https://a.test/b',
      ]);
      assert.deepEqual(await s.snapshotKeys('m', 't1*'), ['t1*|x']);
      assert.deepEqual(await s.snapshotKeys('m', 't1%'), ['t1%_|y']);
      assert.deepEqual(await s.snapshotKeys('m', '[t1]'), ['[t1]|z']);
      assert.deepEqual((await s.snapshotKeys('m', '')).length, 7);
      assert.deepEqual(await s.snapshotKeys('m', 't3|'), []);
      await s.deleteSnapshot('m', 't1|https://a.test/');
      await s.deleteSnapshot('m', 'never stored');
      assert.equal(await s.snapshot('m', 't1|https://a.test/'), null);
      assert.deepEqual(await s.snapshotKeys('m', 't1|'), ['t1|https://a.test/a?x=*', 't1|https://a.test/b']);
    });

    test('purgeChecks removes checks created before the time with their pages, and nothing else', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const s = h.store;
      await s.put(monitor('m', T));
      for (const [id, at] of [
        ['old1', T],
        ['old2', T + 1000],
        ['edge', T + 2000],
        ['new', T + 3000],
      ] as const) {
        await s.putCheck(check(id, 'm', at));
        await s.addPages(id, [page(id, 0, 'changed'), page(id, 1, 'same')]);
      }
      await s.putCheck(check('elsewhere', 'm2', T));
      await s.addPages('elsewhere', [page('elsewhere', 0, 'new')]);
      await s.putSnapshot('m', 'k', { markdown: 'x', scrapeId: 's', at: T });

      assert.equal(await s.purgeChecks('m', T + 2000), 2);
      assert.deepEqual(ids((await s.checks('m', 0, 10)).checks), ['new', 'edge']);
      assert.equal(await s.check('m', 'old1'), null);
      assert.deepEqual(await s.pages('old1', 0, 10), { pages: [], total: 0 });
      assert.deepEqual(await s.pages('old2', 0, 10, 'changed'), { pages: [], total: 0 });
      assert.equal((await s.pages('edge', 0, 10)).total, 2);
      assert.equal((await s.pages('elsewhere', 0, 10)).total, 1);
      assert.equal((await s.check('m2', 'elsewhere'))?.id, 'elsewhere');
      assert.ok(await s.snapshot('m', 'k'));
      assert.ok(await s.get('m'));
      assert.equal(await s.purgeChecks('m', T + 2000), 0);
      assert.equal(await s.purgeChecks('none', T + 1_000_000), 0);
    });

    test('what was stored is found again after a restart', async (t) => {
      const h = await make();
      t.after(() => h.close());
      if (!h.reopen) return t.skip('the memory store keeps nothing across a restart');
      const stored = monitor('m', T, { nextRunAt: T + 60_000, lastCheckSummary: SUMMARY });
      await h.store.put(stored);
      await h.store.putCheck(check('c1', 'm', T));
      await h.store.addPages('c1', [page('c1', 0, 'changed')]);
      await h.store.putSnapshot('m', 'k', { markdown: '# A', scrapeId: 'sc1', at: T });
      const s = await h.reopen();
      assert.deepEqual(await s.get('m'), stored);
      assert.equal(await s.count(stored.owner), 1);
      assert.deepEqual(await s.due(T + 60_000), [stored]);
      assert.deepEqual(await s.check('m', 'c1'), check('c1', 'm', T));
      assert.deepEqual(await s.pages('c1', 0, 10), { pages: [page('c1', 0, 'changed')], total: 1 });
      assert.deepEqual(await s.snapshot('m', 'k'), { markdown: '# A', scrapeId: 'sc1', at: T });
      assert.equal(await s.advance('m', T + 60_000, T + 120_000), true);
    });
  });
}
