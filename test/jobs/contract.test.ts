import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { MemoryFrontier } from '../../src/crawl/memory-frontier.js';
import { MemoryJobStore } from '../../src/jobs/stores/memory-job-store.js';
import { SqliteFrontier } from '../../src/jobs/stores/sqlite-frontier.js';
import { SqliteJobStore } from '../../src/jobs/stores/sqlite-job-store.js';
import { SqliteDb } from '../../src/jobs/stores/sqlite.js';
import { MemoryPageStore } from '../../src/jobs/stores/page-store.js';
import { SqlitePageStore } from '../../src/jobs/stores/sqlite-page-store.js';
import { frontierContract, jobStoreContract, pageStoreContract } from './contract.js';
import type { LegacyJob } from './contract.js';
import { MemoryProfileStore, Profiles } from '../../src/jobs/stores/browser-state/profile-store.js';
import { ProfileSeal } from '../../src/jobs/stores/browser-state/profile-seal.js';
import { SqliteProfileStore } from '../../src/jobs/stores/browser-state/sqlite-profile-store.js';
import { SECRET_VALUE, acmeState, profileStoreContract } from './profile-contract.js';
import { MemorySessionStore } from '../../src/jobs/stores/browser-state/session-store.js';
import { SqliteSessionStore } from '../../src/jobs/stores/browser-state/sqlite-session-store.js';
import { sessionStoreContract } from './session-contract.js';
import { MemoryScrapeOriginStore } from '../../src/jobs/stores/browser-state/scrape-origin-store.js';
import { SqliteScrapeOriginStore } from '../../src/jobs/stores/browser-state/sqlite-scrape-origin-store.js';
import { scrapeOriginContract } from './scrape-origin-contract.js';
import { MemoryMonitorStore } from '../../src/jobs/stores/monitor-state/memory-monitor-store.js';
import { SqliteMonitorStore } from '../../src/jobs/stores/monitor-state/sqlite-monitor-store.js';
import { UnavailableMonitorStore } from '../../src/jobs/stores/monitor-state/unavailable-monitor-store.js';
import { monitorStoreContract } from './monitor-contract.js';

const tempDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'pagewright-contract-'));

/** A store of this process only: nothing to reopen. */
const inMemory =
  <T>(build: () => T) =>
  async () => ({ store: build(), close: async () => undefined });

/** A store on a fresh SQLite file; `reopen` closes the file and opens it again, as a restart does. */
const onSqliteFile =
  <T>(build: (db: SqliteDb) => T) =>
  async () => {
    const dir = tempDir();
    let db = SqliteDb.open(dir);
    return {
      store: build(db),
      reopen: async () => {
        await db.close();
        db = SqliteDb.open(dir);
        return build(db);
      },
      close: async () => {
        await db.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };

/** A file of a version without job owners: its `jobs` table has no `owner` column. */
function legacyJobsFile(dir: string, jobs: LegacyJob[]): void {
  const old = new DatabaseSync(path.join(dir, 'pagewright.db'));
  old.exec(`CREATE TABLE jobs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL, request TEXT NOT NULL,
    listed INTEGER NOT NULL, total INTEGER NOT NULL DEFAULT 0, completed INTEGER NOT NULL DEFAULT 0, error TEXT,
    result TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    interruptions INTEGER NOT NULL DEFAULT 0, suspended INTEGER NOT NULL DEFAULT 0)`);
  const insert = old.prepare(
    `INSERT INTO jobs (id, kind, state, request, listed, created_at, updated_at, expires_at)
     VALUES (?, ?, 'scraping', ?, 1, ?, ?, ?)`,
  );
  for (const j of jobs) {
    insert.run(j.id, j.kind, JSON.stringify(j.request), j.createdAt, j.createdAt, j.createdAt + 60_000);
  }
  old.close();
}

jobStoreContract('sqlite', async (ttlMs) => {
  const dir = tempDir();
  let store = new SqliteJobStore(SqliteDb.open(dir), ttlMs);
  const older: { dir: string; store: SqliteJobStore }[] = [];
  return {
    get store() {
      return store;
    },
    reopen: async () => {
      // A crash: the file is reopened by a new connection (what was committed is all there is).
      await store.close();
      store = new SqliteJobStore(SqliteDb.open(dir), ttlMs);
      return store;
    },
    legacy: async (jobs) => {
      const legacyDir = tempDir();
      legacyJobsFile(legacyDir, jobs);
      const opened = new SqliteJobStore(SqliteDb.open(legacyDir), ttlMs);
      older.push({ dir: legacyDir, store: opened });
      return opened;
    },
    close: async () => {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      for (const o of older) {
        await o.store.close().catch(() => undefined);
        rmSync(o.dir, { recursive: true, force: true });
      }
    },
  };
});

jobStoreContract('memory', async (ttlMs) => {
  const store = new MemoryJobStore(ttlMs);
  return { store, close: () => store.close() };
});

frontierContract('sqlite', async () => {
  const dir = tempDir();
  let db = SqliteDb.open(dir);
  const jobId = 'job-1';
  return {
    frontier: new SqliteFrontier(db, jobId),
    reopen: async () => {
      await db.close();
      db = SqliteDb.open(dir);
      return new SqliteFrontier(db, jobId);
    },
    close: async () => {
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

frontierContract('memory', async () => ({ frontier: new MemoryFrontier(), close: async () => undefined }));

pageStoreContract('sqlite', async () => {
  const dir = tempDir();
  let db = SqliteDb.open(dir);
  return {
    pages: new SqlitePageStore(db),
    reopen: async () => {
      await db.close();
      db = SqliteDb.open(dir);
      return new SqlitePageStore(db);
    },
    close: async () => {
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

pageStoreContract('memory', async () => ({ pages: new MemoryPageStore(), close: async () => undefined }));

profileStoreContract(
  'sqlite',
  onSqliteFile((db) => new SqliteProfileStore(db)),
);

profileStoreContract(
  'memory',
  inMemory(() => new MemoryProfileStore()),
);

sessionStoreContract(
  'sqlite',
  onSqliteFile((db) => new SqliteSessionStore(db)),
);

sessionStoreContract(
  'memory',
  inMemory(() => new MemorySessionStore()),
);

scrapeOriginContract(
  'sqlite',
  onSqliteFile((db) => new SqliteScrapeOriginStore(db)),
);

scrapeOriginContract(
  'memory',
  inMemory(() => new MemoryScrapeOriginStore()),
);

monitorStoreContract(
  'sqlite',
  onSqliteFile((db) => new SqliteMonitorStore(db)),
);

monitorStoreContract(
  'memory',
  inMemory(() => new MemoryMonitorStore()),
);

test("sqlite: monitors of a file without the owner column are default's", async () => {
  const dir = tempDir();
  const old = new DatabaseSync(path.join(dir, 'pagewright.db'));
  old.exec(`CREATE TABLE monitors (id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,
    config TEXT NOT NULL, cron TEXT NOT NULL, timezone TEXT NOT NULL, next_run_at INTEGER, last_run_at INTEGER,
    current_check_id TEXT, last_check_summary TEXT, retention_days INTEGER NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL) WITHOUT ROWID`);
  old.exec(`INSERT INTO monitors VALUES ('m1', 'old', 'active', '{}', '0 9 * * *', 'UTC', NULL, NULL, NULL,
    NULL, 30, 1, 1)`);
  old.close();
  const db = SqliteDb.open(dir);
  try {
    const store = new SqliteMonitorStore(db);
    assert.equal((await store.get('m1'))?.owner, 'default');
    assert.equal(await store.count('default'), 1);
    assert.equal(await store.count('key-0123456789ab'), 0);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("sqlite: profiles of a file keyed by name alone are default's, sealed as they were", async () => {
  const dir = tempDir();
  // A profile sealed before tenants: bound to its name alone.
  const sealed = new ProfileSeal('s').seal('legacy', JSON.stringify(acmeState()));
  const old = new DatabaseSync(path.join(dir, 'pagewright.db'));
  old.exec(`CREATE TABLE profiles (name TEXT PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, cookies INTEGER NOT NULL, domains TEXT NOT NULL)
    WITHOUT ROWID`);
  const insert = old.prepare('INSERT INTO profiles VALUES (?, ?, 1, 2, ?, 2, ?)');
  insert.run('legacy', sealed, Date.now() + 60_000, '["127.0.0.1"]');
  old.close();
  const db = SqliteDb.open(dir);
  try {
    const profiles = new Profiles(new SqliteProfileStore(db), { ttlMs: 60_000, secret: 's' });
    assert.equal((await profiles.state('default', 'legacy'))?.cookies[0]?.value, SECRET_VALUE);
    assert.equal(await profiles.state('team-a', 'legacy'), null);
    assert.deepEqual(
      (await profiles.list(null)).map((p) => [p.name, p.tenant, p.cookies]),
      [['legacy', 'default', 2]],
    );
    // The re-keyed table holds one name for two tenants.
    await profiles.save('team-a', 'legacy', { cookies: [], origins: [] });
    assert.equal((await profiles.list(null)).length, 2);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('monitors without the SQLite file: every call is the 503 naming why; the scheduler finds nothing due', async () => {
  const store = new UnavailableMonitorStore('DATA_DIR is held by another process');
  for (const call of [
    () => store.get('m'),
    () => store.list(null, 0, 10),
    () => store.count('default'),
    () => store.advance('m', 1, 2),
  ]) {
    await assert.rejects(
      call(),
      (err: { code?: string; message?: string }) =>
        err.code === 'STORE_UNAVAILABLE' && /held by another process/.test(err.message ?? ''),
    );
  }
  assert.deepEqual(await store.due(Date.now()), []);
  assert.equal(await store.purgeChecks('m', Date.now()), 0);
});

test('sqlite: calls after the file is closed fail as the store being away (never a closed handle)', async () => {
  const dir = tempDir();
  const db = SqliteDb.open(dir);
  const store = new SqliteJobStore(db, 60_000);
  const pages = new SqlitePageStore(db);
  const frontier = new SqliteFrontier(db, 'job-closed');
  await db.close();
  for (const call of [
    () => store.get('x'),
    () => store.purgeExpired(Date.now()),
    () => pages.get('k'),
    () => pages.purge(Date.now()),
    () => frontier.add([{ url: 'https://a.test/', depth: 0, pagination: false }]),
  ]) {
    await assert.rejects(call(), (err: { code?: string }) => err.code === 'STORE_UNAVAILABLE');
  }
  assert.throws(
    () => new SqliteFrontier(db, 'job-after'),
    (err: { code?: string }) => err.code === 'STORE_UNAVAILABLE',
  );
  rmSync(dir, { recursive: true, force: true });
});
