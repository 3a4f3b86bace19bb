import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SqliteMonitorStore } from '../../src/jobs/stores/monitor-state/sqlite-monitor-store.js';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';
import { monitorRecord } from './helpers.js';

test('a check left running with no job (its process died as it started it) does not skip every later check', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-stale-check-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const longAgo = Date.now() - 10 * 60_000;
  const db = SqliteDb.open(dataDir);
  const store = new SqliteMonitorStore(db);
  const surface = { schedule: { cron: '0 9 * * *' }, targets: [], webhook: null, notification: null };
  const config = { targets: [], goal: null, judgeEnabled: false, webhook: null, notes: [], surface };
  await store.put(monitorRecord('m1', '0 9 * * *', { status: 'paused', config, currentCheckId: 'c-stale' }));
  await store.putCheck({
    id: 'c-stale',
    monitorId: 'm1',
    status: 'running',
    trigger: 'manual',
    scheduledFor: null,
    startedAt: longAgo,
    finishedAt: null,
    summary: { totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 },
    targetResults: [],
    notificationStatus: null,
    error: null,
    createdAt: longAgo,
    updatedAt: longAgo,
  });
  await db.close();

  const svc = await startService(t, { env: { DATA_DIR: dataDir } });
  const run = await svc.post('/v2/monitor/m1/run', {});
  assert.equal(run.status, 200);
  const started = run.json.data as { id: string; status: string };
  assert.equal(started.status, 'queued', 'not skipped as an overlap');
  const check = (id: string) =>
    fetch(`${svc.url}/v2/monitor/m1/checks/${id}`).then(
      async (r) => ((await r.json()) as { data: { status: string; error: string | null } }).data,
    );
  const stale = await check('c-stale');
  assert.equal(stale.status, 'failed');
  assert.equal(stale.error, 'its job was never started');
  const ended = await until(
    () => check(started.id),
    (c) => c.status !== 'queued' && c.status !== 'running',
  );
  assert.equal(ended.status, 'completed');
});
