import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';
import { SqliteJobStore } from '../../src/jobs/stores/sqlite-job-store.js';

/** When the store's writes reach the disk: what another connection to the file sees is what was committed. */
function openStore(t: TestContext): { db: SqliteDb; committedRows: () => number; insert: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-commits-'));
  const db = SqliteDb.open(dir);
  db.db.exec('CREATE TABLE t (x INTEGER)');
  const reader = new DatabaseSync(path.join(dir, 'pagewright.db'));
  t.after(async () => {
    reader.close();
    await db.close().catch(() => undefined); // closed by the test already
    rmSync(dir, { recursive: true, force: true });
  });
  const count = reader.prepare('SELECT count(*) AS n FROM t');
  const add = db.db.prepare('INSERT INTO t VALUES (1)');
  return {
    db,
    committedRows: () => Number((count.get() as { n: number }).n),
    insert: () => void add.run(),
  };
}

test('the writes of one turn share a commit, and each resolves only once it is on disk', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  const writes = [db.write(insert), db.write(insert)];
  db.apply(insert);
  assert.equal(committedRows(), 0, 'committed before the end of the turn');
  await Promise.all(writes);
  assert.equal(committedRows(), 3);
});

test('closing the file commits the pending writes first', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  const pending = db.write(insert);
  await db.close();
  await pending;
  assert.equal(committedRows(), 1);
});

test('writes that follow a commit closely share the next one, and each still resolves once on disk', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  await db.write(insert);
  // Each in a turn of its own, right after that commit: commits are MIN_COMMIT_GAP_MS apart at least.
  const later: Promise<void>[] = [];
  for (let i = 0; i < 3; i++) {
    later.push(db.write(insert));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(later);
  assert.equal(committedRows(), 4);
});

test("a document stored in order is the store's at once and on disk when its durability resolves", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-in-order-'));
  const store = new SqliteJobStore(SqliteDb.open(dir), 60_000);
  const reader = new DatabaseSync(path.join(dir, 'pagewright.db'));
  t.after(async () => {
    reader.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const job = await store.create({
    id: randomUUID(),
    kind: 'crawl',
    owner: 'default',
    request: { url: 'https://a.test/' },
    listed: true,
    total: 0,
  });
  const onDisk = reader.prepare('SELECT count(*) AS n FROM documents WHERE job_id = ?');
  const first = store.addDocumentInOrder(job.id, 'https://a.test/1', '{"n":1}');
  assert.equal(first.stored, true);
  assert.equal(await store.hasDocument(job.id, 'https://a.test/1'), true, 'readable by the store at once');
  assert.equal(store.addDocumentInOrder(job.id, 'https://a.test/1', '{"n":1}').stored, false, 'a duplicate');
  // A write made after it resolves no earlier than it, and both are on disk then.
  const after = store.setTotal(job.id, 5);
  let firstDurable = false;
  await Promise.all([
    first.durable.then(() => (firstDurable = true)),
    after.then(() => assert.ok(firstDurable)),
  ]);
  assert.equal(Number((onDisk.get(job.id) as { n: number }).n), 1);
  assert.equal((await store.get(job.id))?.completed, 1);
});
