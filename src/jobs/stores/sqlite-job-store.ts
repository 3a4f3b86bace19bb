import { randomUUID } from 'node:crypto';
import type {
  DocumentPage,
  JobError,
  JobRecord,
  JobState,
  JobStore,
  NewJob,
  OwnerFilter,
  RecentFilter,
} from './job-store.js';
import { AppError } from '../../errors.js';
import type { SqliteDb } from './sqlite.js';
import { prepare, storeError } from './sqlite.js';

type Row = unknown[];

const JOB_COLUMNS =
  'id, kind, state, request, listed, total, completed, error, result, created_at, updated_at, expires_at, interruptions, owner';

function toJob(row: Row): JobRecord {
  const [
    id,
    kind,
    state,
    request,
    listed,
    total,
    completed,
    error,
    result,
    created,
    updated,
    expires,
    inter,
    owner,
  ] = row;
  return {
    id: id as string,
    kind: kind as JobRecord['kind'],
    owner: owner as string,
    state: state as JobState,
    request: JSON.parse(request as string) as unknown,
    listed: listed === 1,
    total: Number(total),
    completed: Number(completed),
    error: (error as string | null) ?? null,
    result: result === null || result === undefined ? null : (JSON.parse(result as string) as unknown),
    createdAt: Number(created),
    updatedAt: Number(updated),
    expiresAt: Number(expires),
    interruptions: Number(inter),
  };
}

/** The embedded JobStore: tables `jobs`, `documents`, `job_errors`, `robots_blocked` of one SQLite file. */
export class SqliteJobStore implements JobStore {
  private readonly q;

  constructor(
    private readonly sql: SqliteDb,
    private readonly ttlMs: number,
  ) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      insert: p(
        `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (?, ?, 'scraping', ?, ?, ?, 0, NULL, NULL, ?, ?, ?, 0, ?)`,
      ),
      get: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`),
      active: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'scraping' AND listed = 1 ORDER BY created_at`,
      ),
      activeOf: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'scraping' AND listed = 1 AND owner = ? ORDER BY created_at`,
      ),
      // One statement per filter (owner, kind or both): each can use its index.
      recent: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE listed = 1 AND created_at < ? ORDER BY created_at DESC LIMIT ?`,
      ),
      recentOfKind: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE listed = 1 AND kind = ? AND created_at < ? ORDER BY created_at DESC LIMIT ?`,
      ),
      recentOf: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE owner = ? AND listed = 1 AND created_at < ? ORDER BY created_at DESC LIMIT ?`,
      ),
      recentOfOwnerKind: p(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE owner = ? AND listed = 1 AND kind = ? AND created_at < ? ORDER BY created_at DESC LIMIT ?`,
      ),
      setTotal: p('UPDATE jobs SET total = max(?, completed), updated_at = ? WHERE id = ?'),
      addDoc: p(
        'INSERT INTO documents (job_id, seq, url, bytes, body) VALUES (?, (SELECT completed FROM jobs WHERE id = ?), ?, ?, ?) ON CONFLICT (job_id, url) DO NOTHING',
      ),
      countDoc: p(
        'UPDATE jobs SET completed = completed + 1, total = max(total, completed + 1), updated_at = ? WHERE id = ?',
      ),
      docSizes: p('SELECT seq, bytes FROM documents WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?'),
      docBodies: p('SELECT body FROM documents WHERE job_id = ? AND seq >= ? AND seq < ? ORDER BY seq'),
      hasDoc: p('SELECT 1 FROM documents WHERE job_id = ? AND url = ?'),
      hasDocAt: p('SELECT 1 FROM documents WHERE job_id = ? AND seq = ?'),
      addError: p(
        'INSERT OR REPLACE INTO job_errors (job_id, url, id, code, error, at, attempts) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      errors: p(
        'SELECT id, url, code, error, at, attempts FROM job_errors WHERE job_id = ? ORDER BY at, url',
      ),
      addBlocked: p('INSERT OR IGNORE INTO robots_blocked (job_id, url) VALUES (?, ?)'),
      blocked: p('SELECT url FROM robots_blocked WHERE job_id = ? ORDER BY url'),
      finish: p(
        "UPDATE jobs SET state = ?, error = ?, result = ?, updated_at = ?, expires_at = ? WHERE id = ? AND state = 'scraping'",
      ),
      interrupted: p(
        `UPDATE jobs SET interruptions = interruptions + 1 - suspended, suspended = 0 WHERE state = 'scraping' AND listed = 1 RETURNING ${JOB_COLUMNS}`,
      ),
      suspend: p("UPDATE jobs SET suspended = 1 WHERE id = ? AND state = 'scraping'"),
      unlisted: p("SELECT id FROM jobs WHERE state = 'scraping' AND listed = 0"),
      expired: p("SELECT id FROM jobs WHERE expires_at < ? AND state != 'scraping' LIMIT 1000"),
      dropJob: p('DELETE FROM jobs WHERE id = ?'),
      // Bounded deletes: a 100,000-page job is dropped a slice per turn, never in one long statement.
      dropDocs: p(
        'DELETE FROM documents WHERE job_id = ?1 AND seq IN (SELECT seq FROM documents WHERE job_id = ?1 LIMIT 200)',
      ),
      dropErrors: p(
        'DELETE FROM job_errors WHERE job_id = ?1 AND url IN (SELECT url FROM job_errors WHERE job_id = ?1 LIMIT 2000)',
      ),
      dropBlocked: p(
        'DELETE FROM robots_blocked WHERE job_id = ?1 AND url IN (SELECT url FROM robots_blocked WHERE job_id = ?1 LIMIT 2000)',
      ),
      dropFrontier: p(
        'DELETE FROM frontier WHERE job_id = ?1 AND key IN (SELECT key FROM frontier WHERE job_id = ?1 LIMIT 2000)',
      ),
    };
  }

  private read<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(this.sql.read(fn));
    } catch (err) {
      return Promise.reject(err instanceof AppError ? err : storeError(err));
    }
  }

  create(job: NewJob): Promise<JobRecord> {
    const now = Date.now();
    return this.sql.write(() => {
      this.q.insert.run(
        job.id,
        job.kind,
        JSON.stringify(job.request),
        job.listed ? 1 : 0,
        job.total,
        now,
        now,
        now + this.ttlMs,
        job.owner,
      );
      return toJob(this.q.get.get(job.id) as Row);
    });
  }

  get(id: string): Promise<JobRecord | null> {
    return this.read(() => {
      const row = this.q.get.get(id) as Row | undefined;
      return row ? toJob(row) : null;
    });
  }

  active(filter: OwnerFilter = {}): Promise<JobRecord[]> {
    return this.read(() =>
      (filter.owner === undefined
        ? (this.q.active.all() as Row[])
        : (this.q.activeOf.all(filter.owner) as Row[])
      ).map(toJob),
    );
  }

  recent(limit: number, filter: RecentFilter = {}): Promise<JobRecord[]> {
    const before = filter.before ?? Number.MAX_SAFE_INTEGER;
    const { owner, kind } = filter;
    const q = this.q;
    return this.read(() =>
      (owner === undefined
        ? kind === undefined
          ? q.recent.all(before, limit)
          : q.recentOfKind.all(kind, before, limit)
        : kind === undefined
          ? q.recentOf.all(owner, before, limit)
          : q.recentOfOwnerKind.all(owner, kind, before, limit)
      ).map((row) => toJob(row as Row)),
    );
  }

  setTotal(id: string, total: number): Promise<void> {
    return this.sql.write(() => void this.q.setTotal.run(total, Date.now(), id));
  }

  addDocument(id: string, url: string, body: string): Promise<boolean> {
    return this.sql.write(() => {
      const stored = this.q.addDoc.run(id, id, url, Buffer.byteLength(body), body).changes === 1;
      if (stored) this.q.countDoc.run(Date.now(), id);
      return stored;
    });
  }

  hasDocument(id: string, url: string): Promise<boolean> {
    return this.read(() => this.q.hasDoc.get(id, url) !== undefined);
  }

  documents(id: string, skip: number, limit: number, maxBytes: number): Promise<DocumentPage> {
    return this.read(() => {
      // Choose the range by size before loading any body.
      // Rows are read one by one up to the byte budget (a covering index), not the whole rest of the job.
      let end = skip;
      let bytes = 0;
      for (const [seq, size] of this.q.docSizes.iterate(id, skip, limit) as Iterable<[number, number]>) {
        if (end > skip && bytes + Number(size) > maxBytes) break;
        bytes += Number(size);
        end = Number(seq) + 1;
      }
      const documents = (this.q.docBodies.all(id, skip, end) as [string][]).map(([body]) => body);
      const more = this.q.hasDocAt.get(id, end) !== undefined;
      return { documents, nextSkip: end, more };
    });
  }

  addError(id: string, url: string, code: string, error: string, attempts: number): Promise<void> {
    return this.sql.write(
      () => void this.q.addError.run(id, url, randomUUID(), code, error, Date.now(), attempts),
    );
  }

  errors(id: string): Promise<JobError[]> {
    return this.read(() =>
      (this.q.errors.all(id) as Row[]).map(([eid, url, code, error, at, attempts]) => ({
        id: eid as string,
        url: url as string,
        code: code as string,
        error: error as string,
        at: Number(at),
        attempts: Number(attempts),
      })),
    );
  }

  addRobotsBlocked(id: string, url: string): Promise<void> {
    return this.sql.write(() => void this.q.addBlocked.run(id, url));
  }

  robotsBlocked(id: string): Promise<string[]> {
    return this.read(() => (this.q.blocked.all(id) as [string][]).map(([url]) => url));
  }

  finish(id: string, state: JobState, outcome: { error?: string; result?: unknown } = {}): Promise<boolean> {
    const now = Date.now();
    const result = outcome.result === undefined ? null : JSON.stringify(outcome.result);
    return this.sql
      .write(() => {
        const changed =
          this.q.finish.run(state, outcome.error ?? null, result, now, now + this.ttlMs, id).changes === 1;
        return changed;
      })
      .then((changed) => {
        // The frontier of an ended job is never read again (a crash before it is gone: purge removes it).
        if (changed) void this.dropAll(this.q.dropFrontier, id).catch(() => undefined);
        return changed;
      });
  }

  /** Deletes a job's rows of one table a slice per turn of the event loop. */
  private async dropAll(statement: { run(id: string): { changes: number } }, id: string): Promise<void> {
    while ((await this.sql.write(() => statement.run(id).changes)) > 0);
  }

  suspend(id: string): Promise<void> {
    return this.sql.write(() => void this.q.suspend.run(id));
  }

  claimInterrupted(): Promise<JobRecord[]> {
    return this.sql.write(() => {
      // An attached job's caller died with the process: nobody can read it, so it is cancelled.
      for (const [id] of this.q.unlisted.all() as [string][]) {
        const now = Date.now();
        this.q.finish.run(
          'cancelled',
          'the service stopped while its caller was attached',
          null,
          now,
          now + this.ttlMs,
          id,
        );
      }
      return (this.q.interrupted.all() as Row[]).map(toJob);
    });
  }

  async purgeExpired(now: number): Promise<number> {
    const ids = await this.read(() => (this.q.expired.all(now) as [string][]).map(([id]) => id));
    for (const id of ids) {
      for (const rows of [this.q.dropDocs, this.q.dropErrors, this.q.dropBlocked, this.q.dropFrontier]) {
        await this.dropAll(rows, id);
      }
      // The job row goes last: a crash halfway leaves an expired job that the next purge finishes.
      await this.sql.write(() => this.q.dropJob.run(id));
    }
    return ids.length;
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}
