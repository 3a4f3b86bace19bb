import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';

/**
 * When the store's writes reach the disk: what another connection to the file sees is what was committed.
 * The patient window is a minute here, so that no test depends on how fast the machine is.
 */
const WINDOW_MS = 60_000;

function openStore(t: TestContext): { db: SqliteDb; committedRows: () => number; insert: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-commits-'));
  const db = SqliteDb.open(dir, WINDOW_MS);
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

/** Whether `promise` settled within a few turns of the event loop. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 5; turn++) await nextTurn();
  return settled;
}

test('a write commits at the end of its turn; so does a patient one when no commit was made lately', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  await db.write(insert, true);
  assert.equal(committedRows(), 1, 'the first patient write: no commit before it');
  await db.write(insert);
  assert.equal(committedRows(), 2);
});

test('patient writes after a recent commit wait for it, together, and resolve only once on disk', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  await db.write(insert);
  const first = db.write(insert, true);
  const second = db.write(insert, true);
  db.apply(insert);
  assert.equal(await settledSoon(Promise.race([first, second])), false, 'acknowledged before its commit');
  assert.equal(committedRows(), 1);
  // A write someone waits for joins them: all four commit at the end of its turn.
  await db.write(insert);
  assert.equal(await settledSoon(Promise.all([first, second])), true);
  assert.equal(committedRows(), 5);
});

test('closing the file commits the patient writes first', async (t) => {
  const { db, committedRows, insert } = openStore(t);
  await db.write(insert);
  const patient = db.write(insert, true);
  await db.close();
  await patient;
  assert.equal(committedRows(), 2);
});
