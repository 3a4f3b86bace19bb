import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { AppError, StoreUnavailableError } from '../errors.js';

type Db = InstanceType<typeof Database>;

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
  suspended INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state);
CREATE INDEX IF NOT EXISTS jobs_by_expiry ON jobs (expires_at);
CREATE TABLE IF NOT EXISTS documents (
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS documents_by_url ON documents (job_id, url);
CREATE TABLE IF NOT EXISTS job_errors (
  job_id TEXT NOT NULL,
  url TEXT NOT NULL,
  id TEXT NOT NULL,
  code TEXT NOT NULL,
  error TEXT NOT NULL,
  at INTEGER NOT NULL,
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
  PRIMARY KEY (job_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS frontier_queue ON frontier (job_id, state, seq);
`;

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** A prepared statement; statements that return rows return them as arrays (no per-row objects). */
export function prepare(sql: SqliteDb, source: string) {
  const statement = sql.db.prepare(source);
  return /^\s*SELECT|\bRETURNING\b/i.test(source) ? statement.raw() : statement;
}

/** Maps SQLite's failures (full disk, corrupt file, read-only folder) onto one 503 with the reason. */
export function storeError(err: unknown): StoreUnavailableError {
  const message = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(`Job store unavailable: ${message}`, { cause: err });
}

/**
 * One SQLite file (WAL, synchronous=NORMAL: a commit survives a crash of this process, which is the failure
 * the job engine must survive). Writes made in one event-loop turn share one transaction (group commit):
 * `write` runs its function at once inside that transaction and resolves only after the commit, so whatever
 * a caller was told is stored is on disk. Reads run at once and see this connection's uncommitted writes.
 */
export class SqliteDb {
  private waiters: Waiter[] | null = null;

  private constructor(readonly db: Db) {}

  /** Opens (creating when missing) `DATA_DIR/pagewright.db`; StoreUnavailableError when it cannot. */
  static open(dataDir: string): SqliteDb {
    try {
      mkdirSync(dataDir, { recursive: true });
      const db = new Database(path.join(dataDir, 'pagewright.db'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      // A checkpoint every 1,000 pages cost ~50 µs per 10 KB document on the main thread; every 10,000 is
      // a fraction of that and keeps the WAL bounded.
      db.pragma('wal_autocheckpoint = 10000');
      db.exec(SCHEMA);
      db.prepare('SELECT count(*) FROM jobs').raw().get(); // a corrupt file fails here, not later
      return new SqliteDb(db);
    } catch (err) {
      throw storeError(err);
    }
  }

  private begin(): void {
    if (this.waiters !== null) return;
    try {
      this.db.exec('BEGIN');
    } catch (err) {
      throw storeError(err);
    }
    this.waiters = [];
    setImmediate(() => this.commit());
  }

  /**
   * Runs `fn` inside this turn's transaction and returns at once, without waiting for the commit. For writes
   * whose durability only matters relative to later ones: transactions commit in order on one connection,
   * so such a write is on disk no later than any write made after it (a frontier marks a URL done only after
   * the links found on its page were added).
   */
  apply<T>(fn: () => T): T {
    this.begin();
    try {
      return fn();
    } catch (err) {
      throw err instanceof AppError ? err : storeError(err);
    }
  }

  /** Runs `fn` inside this turn's transaction; resolves with its value once that transaction commits. */
  write<T>(fn: () => T): Promise<T> {
    try {
      this.begin();
    } catch (err) {
      return Promise.reject(err);
    }
    // Each statement is atomic on its own; a failing write is reported to its caller alone (a failure of the
    // whole transaction reaches every waiter at commit). No savepoint per write: it doubled the cost.
    let value: T;
    try {
      value = fn();
    } catch (err) {
      return Promise.reject(err instanceof AppError ? err : storeError(err));
    }
    return new Promise<T>((resolve, reject) => {
      this.waiters!.push({ resolve: () => resolve(value), reject });
    });
  }

  private commit(): void {
    const waiters = this.waiters ?? [];
    this.waiters = null;
    try {
      this.db.exec('COMMIT');
      for (const w of waiters) w.resolve();
    } catch (err) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // Nothing more can be done; the waiters learn why.
      }
      const e = storeError(err);
      for (const w of waiters) w.reject(e);
    }
  }

  /** Waits for the pending commit, then closes the file. */
  async close(): Promise<void> {
    if (this.waiters !== null) await this.write(() => undefined).catch(() => undefined);
    this.db.close();
  }
}
