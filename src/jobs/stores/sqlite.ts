import { mkdirSync } from 'node:fs';
import { DataDirLock } from './data-dir-lock.js';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue } from 'node:sqlite';
import { AppError, StoreUnavailableError } from '../../errors.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  request TEXT NOT NULL,
  listed INTEGER NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  completed INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  result TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  interruptions INTEGER NOT NULL DEFAULT 0,
  suspended INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL DEFAULT 'default'
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state);
CREATE INDEX IF NOT EXISTS jobs_by_expiry ON jobs (expires_at);
CREATE INDEX IF NOT EXISTS jobs_by_creation ON jobs (listed, created_at);
CREATE TABLE IF NOT EXISTS documents (
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS documents_by_url ON documents (job_id, url);
CREATE INDEX IF NOT EXISTS documents_sizes ON documents (job_id, seq, bytes);
CREATE TABLE IF NOT EXISTS job_errors (
  job_id TEXT NOT NULL,
  url TEXT NOT NULL,
  id TEXT NOT NULL,
  code TEXT NOT NULL,
  error TEXT NOT NULL,
  at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (job_id, url)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS robots_blocked (
  job_id TEXT NOT NULL,
  url TEXT NOT NULL,
  PRIMARY KEY (job_id, url)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS frontier (
  job_id TEXT NOT NULL,
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  pagination INTEGER NOT NULL,
  state INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  due INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS frontier_queue ON frontier (job_id, state, seq);
CREATE TABLE IF NOT EXISTS pages (
  key TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pages_by_age ON pages (at);
CREATE TABLE IF NOT EXISTS profiles (
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  cookies INTEGER NOT NULL,
  domains TEXT NOT NULL,
  PRIMARY KEY (owner, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS browser_sessions (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  keep_until INTEGER NOT NULL,
  body TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scrape_origins (
  scrape_id TEXT PRIMARY KEY,
  keep_until INTEGER NOT NULL,
  body TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS monitors (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  config TEXT NOT NULL,
  cron TEXT NOT NULL,
  timezone TEXT NOT NULL,
  next_run_at INTEGER,
  last_run_at INTEGER,
  current_check_id TEXT,
  last_check_summary TEXT,
  retention_days INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  owner TEXT NOT NULL DEFAULT 'default'
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS monitors_by_creation ON monitors (created_at, id);
CREATE INDEX IF NOT EXISTS monitors_due ON monitors (status, next_run_at);
CREATE TABLE IF NOT EXISTS monitor_checks (
  id TEXT PRIMARY KEY,
  monitor_id TEXT NOT NULL,
  status TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  scheduled_for INTEGER,
  started_at INTEGER,
  finished_at INTEGER,
  summary TEXT NOT NULL,
  target_results TEXT NOT NULL,
  notification_status TEXT NOT NULL,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS monitor_checks_by_creation ON monitor_checks (monitor_id, created_at, id);
CREATE INDEX IF NOT EXISTS monitor_checks_by_status ON monitor_checks (monitor_id, status, created_at, id);
CREATE TABLE IF NOT EXISTS monitor_pages (
  check_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  target_id TEXT NOT NULL,
  url TEXT NOT NULL,
  status TEXT NOT NULL,
  detail TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (check_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS monitor_pages_by_status ON monitor_pages (check_id, status, seq);
CREATE TABLE IF NOT EXISTS monitor_snapshots (
  monitor_id TEXT NOT NULL,
  key TEXT NOT NULL,
  markdown TEXT NOT NULL,
  scrape_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_days (
  day TEXT NOT NULL,
  tenant TEXT NOT NULL,
  pages INTEGER NOT NULL DEFAULT 0,
  browser_ms INTEGER NOT NULL DEFAULT 0,
  documents INTEGER NOT NULL DEFAULT 0,
  llm_tokens INTEGER NOT NULL DEFAULT 0,
  credits INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, tenant)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_days_by_tenant ON usage_days (tenant, day);
`;

/**
 * Columns added since the first schema, with the declaration they get on a file made before them: the SCHEMA
 * above creates them in a new file, and `addColumns` adds them to an older one (ALTER TABLE keeps its rows),
 * then runs the column's `backfill`, if any, once.
 */
const ADDED_COLUMNS: [table: string, column: string, declaration: string, backfill?: string][] = [
  ['job_errors', 'attempts', 'INTEGER NOT NULL DEFAULT 1'],
  ['frontier', 'attempts', 'INTEGER NOT NULL DEFAULT 0'],
  ['frontier', 'due', 'INTEGER NOT NULL DEFAULT 0'],
  // A monitor stored without an owner belongs to the caller of a service without API_KEYS.
  ['monitors', 'owner', "TEXT NOT NULL DEFAULT 'default'"],
  // A job stored without an owner is `default`'s, but an agent run kept its caller in its request.
  [
    'jobs',
    'owner',
    "TEXT NOT NULL DEFAULT 'default'",
    "UPDATE jobs SET owner = json_extract(request, '$.owner') WHERE kind = 'agent' AND json_type(request, '$.owner') = 'text'",
  ],
];

/** Indexes on added columns: created once `addColumns` made the columns exist in an older file. */
const ADDED_INDEXES = [
  'CREATE INDEX IF NOT EXISTS monitors_by_owner ON monitors (owner)',
  'CREATE INDEX IF NOT EXISTS monitors_by_owner_creation ON monitors (owner, created_at, id)',
  'CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (owner, listed, created_at)',
];

/**
 * Profiles are keyed by (owner, name) since tenants: a file made before has `profiles` keyed by name alone,
 * which no ALTER TABLE can re-key. Its rows move to a table of the new shape, owned by `default`.
 */
function rekeyProfiles(db: DatabaseSync): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('profiles')").all() as { name: string }[];
  if (columns.some((c) => c.name === 'owner')) return;
  const kept = 'name, body, created_at, updated_at, expires_at, cookies, domains';
  db.exec('BEGIN');
  try {
    db.exec('ALTER TABLE profiles RENAME TO profiles_without_owner');
    db.exec(SCHEMA); // creates `profiles` in its current shape
    db.exec(`INSERT INTO profiles (owner, ${kept}) SELECT 'default', ${kept} FROM profiles_without_owner`);
    db.exec('DROP TABLE profiles_without_owner');
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

function addColumns(db: DatabaseSync): void {
  for (const [table, column, declaration, backfill] of ADDED_COLUMNS) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[];
    if (!columns.some((c) => c.name === column)) {
      // One transaction: a column is never there without its backfill.
      db.exec('BEGIN');
      try {
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
        if (backfill) db.exec(backfill);
        db.exec('COMMIT');
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
    }
  }
  for (const index of ADDED_INDEXES) db.exec(index);
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

type Param = SQLInputValue;

/**
 * A prepared statement as the stores use it: rows as arrays (no per-row objects), counts as numbers (no
 * BigInts are read). The casts of its rows to tuples are the stores' own, checked by the contract suite.
 */
export interface Statement {
  run(...params: Param[]): { changes: number };
  get(...params: Param[]): unknown;
  all(...params: Param[]): unknown[];
  iterate(...params: Param[]): Iterable<unknown>;
}

/** Prepares `source`; statements that return rows return them as arrays. */
export function prepare(sql: SqliteDb, source: string): Statement {
  const statement = sql.read(() => sql.db.prepare(source));
  if (/^\s*SELECT|\bRETURNING\b/i.test(source)) statement.setReturnArrays(true);
  return statement as unknown as Statement;
}

/** Maps SQLite's failures (full disk, corrupt file, read-only folder) onto one 503 with the reason. */
export function storeError(err: unknown): StoreUnavailableError {
  const message = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(`Job store unavailable: ${message}`, { cause: err });
}

/** Runs a store's work: a failure that is not already an AppError becomes storeError's 503. */
export async function storeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof AppError ? err : storeError(err);
  }
}

/**
 * One SQLite file (WAL, synchronous=NORMAL: a commit survives a crash of this process, which is the failure
 * the job engine must survive). Writes made in one event-loop turn share one transaction (group commit):
 * `write` runs its function at once inside that transaction and resolves only after the commit, so whatever
 * a caller was told is stored is on disk. Reads run at once and see this connection's uncommitted writes.
 */
export class SqliteDb {
  private waiters: Waiter[] | null = null;
  /** Set by `close`: every read and write checks it first and fails as the store being away. */
  private closed = false;
  private readonly failureListeners = new Set<(error: StoreUnavailableError) => void>();

  private constructor(
    readonly db: DatabaseSync,
    private readonly lock: DataDirLock,
  ) {}

  /** Opens (creating when missing) `DATA_DIR/pagewright.db`; StoreUnavailableError when it cannot. */
  static open(dataDir: string): SqliteDb {
    let db: DatabaseSync | null = null;
    let lock: DataDirLock | null = null;
    try {
      mkdirSync(dataDir, { recursive: true });
      lock = DataDirLock.take(dataDir);
      db = new DatabaseSync(path.join(dataDir, 'pagewright.db'));
      db.exec('PRAGMA busy_timeout = 1000');
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      // A checkpoint every 1,000 pages cost ~50 µs per 10 KB document on the main thread; every 10,000 is
      // a fraction of that and keeps the WAL bounded.
      db.exec('PRAGMA wal_autocheckpoint = 10000');
      db.exec(SCHEMA);
      addColumns(db);
      rekeyProfiles(db);
      db.prepare('SELECT count(*) FROM jobs').get(); // a corrupt file fails here, not later
      return new SqliteDb(db, lock);
    } catch (err) {
      try {
        db?.close();
      } catch {
        // already unusable
      }
      lock?.release();
      throw storeError(err);
    }
  }

  /**
   * Called when a turn's transaction is lost (a failed commit, or SQLite rolling it back on its own after a
   * full disk): writes made with `apply` are gone too, so their owners (running crawls) must stop and start
   * again from what is stored.
   */
  onFailure(listener: (error: StoreUnavailableError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /** Rejects every write of the lost transaction and tells the listeners. */
  private lost(err: unknown): StoreUnavailableError {
    const e = err instanceof StoreUnavailableError ? err : storeError(err);
    const waiters = this.waiters ?? [];
    this.waiters = null;
    try {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
    } catch {
      // Nothing more can be done; the waiters learn why.
    }
    for (const w of waiters) w.reject(e);
    for (const listener of this.failureListeners) listener(e);
    return e;
  }

  private begin(): void {
    if (this.waiters !== null) {
      if (this.db.isTransaction) return;
      // SQLite rolled this turn's transaction back by itself (SQLITE_FULL, IOERR): its writes are lost.
      this.lost(new Error('the transaction was rolled back by SQLite'));
    }
    try {
      this.db.exec('BEGIN');
    } catch (err) {
      throw storeError(err);
    }
    this.waiters = [];
    setImmediate(() => this.commit());
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreUnavailableError('Job store unavailable: the service is stopping');
  }

  /** Runs a read at once (it sees this connection's uncommitted writes). */
  read<T>(fn: () => T): T {
    this.checkOpen();
    try {
      return fn();
    } catch (err) {
      throw err instanceof AppError ? err : storeError(err);
    }
  }

  /** Runs `fn` in this turn's transaction; a failure that took the whole transaction with it is reported. */
  private run<T>(fn: () => T): T {
    this.checkOpen();
    this.begin();
    try {
      return fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      // A statement failed: on its own (the caller learns it), or with the whole transaction (all learn it).
      throw this.waiters !== null && !this.db.isTransaction ? this.lost(err) : storeError(err);
    }
  }

  /**
   * Runs `fn` inside this turn's transaction and returns at once, without waiting for the commit. For writes
   * whose durability only matters relative to later ones: transactions commit in order on one connection,
   * so such a write is on disk no later than any write made after it (a frontier marks a URL done only after
   * the links found on its page were added). If the transaction is lost, `onFailure` listeners hear of it.
   */
  apply<T>(fn: () => T): T {
    return this.run(fn);
  }

  /** Runs `fn` inside this turn's transaction; resolves with its value once that transaction commits. */
  write<T>(fn: () => T): Promise<T> {
    let value: T;
    try {
      value = this.run(fn);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiters!.push({ resolve: () => resolve(value), reject });
    });
  }

  private commit(): void {
    if (this.waiters === null) return; // already lost and reported
    if (this.closed) {
      const e = new StoreUnavailableError('Job store unavailable: the service is stopping');
      for (const w of this.waiters) w.reject(e);
      this.waiters = null;
      return;
    }
    const waiters = this.waiters;
    try {
      if (!this.db.isTransaction) throw new Error('the transaction was rolled back by SQLite');
      this.db.exec('COMMIT');
      this.waiters = null;
      for (const w of waiters) w.resolve();
    } catch (err) {
      this.lost(err);
    }
  }

  /** Waits for the pending commit, then closes the file. */
  async close(): Promise<void> {
    if (this.waiters !== null) await this.write(() => undefined).catch(() => undefined);
    this.closed = true;
    this.db.close();
    this.lock.release();
  }
}
