import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';

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
