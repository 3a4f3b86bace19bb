import type {
  CheckPage,
  CheckRecord,
  CheckStatus,
  CheckSummary,
  MonitorRecord,
  MonitorStore,
  PageStatus,
  Snapshot,
} from './monitor-store.js';
import { prepare } from '../sqlite.js';
import type { SqliteDb, Statement } from '../sqlite.js';

type Row = unknown[];

const MONITOR_COLUMNS =
  'id, name, status, config, cron, timezone, next_run_at, last_run_at, current_check_id, last_check_summary, retention_days, created_at, updated_at, owner';
const CHECK_COLUMNS =
  'id, monitor_id, status, trigger_kind, scheduled_for, started_at, finished_at, summary, target_results, notification_status, error, created_at, updated_at';
const PAGE_COLUMNS = 'id, check_id, target_id, url, status, detail, created_at';

const numberOrNull = (value: unknown): number | null => (value === null ? null : Number(value));

function toMonitor(row: Row): MonitorRecord {
  const [
    id,
    name,
    status,
    config,
    cron,
    timezone,
    next,
    last,
    current,
    summary,
    retention,
    created,
    updated,
    owner,
  ] = row;
  return {
    id: id as string,
    owner: owner as string,
    name: name as string,
    status: status as MonitorRecord['status'],
    config: JSON.parse(config as string) as Record<string, unknown>,
    cron: cron as string,
    timezone: timezone as string,
    nextRunAt: numberOrNull(next),
    lastRunAt: numberOrNull(last),
    currentCheckId: (current as string | null) ?? null,
    lastCheckSummary: summary === null ? null : (JSON.parse(summary as string) as CheckSummary),
    retentionDays: Number(retention),
    createdAt: Number(created),
    updatedAt: Number(updated),
  };
}

function toCheck(row: Row): CheckRecord {
  const [id, monitorId, status, trigger, scheduled, started, finished, summary, targets, notes, error] = row;
  const [created, updated] = row.slice(11);
  return {
    id: id as string,
    monitorId: monitorId as string,
    status: status as CheckStatus,
    trigger: trigger as CheckRecord['trigger'],
    scheduledFor: numberOrNull(scheduled),
    startedAt: numberOrNull(started),
    finishedAt: numberOrNull(finished),
    summary: JSON.parse(summary as string) as CheckSummary,
    targetResults: JSON.parse(targets as string) as unknown[],
    notificationStatus: JSON.parse(notes as string) as unknown,
    error: (error as string | null) ?? null,
    createdAt: Number(created),
    updatedAt: Number(updated),
  };
}

function toPage(row: Row): CheckPage {
  const [id, checkId, targetId, url, status, detail, created] = row;
  return {
    id: id as string,
    checkId: checkId as string,
    targetId: targetId as string,
    url: url as string,
    status: status as PageStatus,
    detail: JSON.parse(detail as string) as Record<string, unknown>,
    createdAt: Number(created),
  };
}

/**
 * The embedded MonitorStore: tables `monitors`, `monitor_checks`, `monitor_pages` and `monitor_snapshots` of the
 * job store's SQLite file (the opaque parts as JSON columns). `advance` is one compare-and-set UPDATE, so two
 * loops over the same file (a restart overlapping its predecessor's last tick) never both fire a tick.
 */
export class SqliteMonitorStore implements MonitorStore {
  private readonly q;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    const ofChecks = 'SELECT id FROM monitor_checks WHERE monitor_id = ?1';
    this.q = {
      get: p(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ?`),
      put: p(`INSERT OR REPLACE INTO monitors (${MONITOR_COLUMNS}) VALUES (${marks(14)})`),
      list: p(`SELECT ${MONITOR_COLUMNS} FROM monitors ORDER BY created_at, id LIMIT ? OFFSET ?`),
      listOf: p(
        `SELECT ${MONITOR_COLUMNS} FROM monitors WHERE owner = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
      ),
      count: p('SELECT count(*) FROM monitors'),
      countOf: p('SELECT count(*) FROM monitors WHERE owner = ?'),
      delete: p('DELETE FROM monitors WHERE id = ?'),
      due: p(
        `SELECT ${MONITOR_COLUMNS} FROM monitors WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at, id`,
      ),
      advance: p('UPDATE monitors SET next_run_at = ? WHERE id = ? AND next_run_at = ?'),
      putCheck: p(`INSERT OR REPLACE INTO monitor_checks (${CHECK_COLUMNS}) VALUES (${marks(13)})`),
      check: p(`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = ? AND monitor_id = ?`),
      checks: {
        all: p(
          `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE monitor_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        ),
        of: p(
          `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE monitor_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        ),
        count: p('SELECT count(*) FROM monitor_checks WHERE monitor_id = ?'),
        countOf: p('SELECT count(*) FROM monitor_checks WHERE monitor_id = ? AND status = ?'),
      },
      deleteChecks: p('DELETE FROM monitor_checks WHERE monitor_id = ?'),
      deletePagesOfMonitor: p(`DELETE FROM monitor_pages WHERE check_id IN (${ofChecks})`),
      deleteSnapshots: p('DELETE FROM monitor_snapshots WHERE monitor_id = ?'),
      purgeChecks: p('DELETE FROM monitor_checks WHERE monitor_id = ? AND created_at < ?'),
      purgePages: p(`DELETE FROM monitor_pages WHERE check_id IN (${ofChecks} AND created_at < ?2)`),
      nextSeq: p('SELECT coalesce(max(seq) + 1, 0) FROM monitor_pages WHERE check_id = ?'),
      addPage: p(
        'INSERT INTO monitor_pages (check_id, seq, id, target_id, url, status, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // Without ANALYZE's statistics SQLite reads a status through the primary key (every page of the check).
      pages: {
        all: p(`SELECT ${PAGE_COLUMNS} FROM monitor_pages WHERE check_id = ? ORDER BY seq LIMIT ? OFFSET ?`),
        of: p(
          `SELECT ${PAGE_COLUMNS} FROM monitor_pages INDEXED BY monitor_pages_by_status WHERE check_id = ? AND status = ? ORDER BY seq LIMIT ? OFFSET ?`,
        ),
        count: p('SELECT count(*) FROM monitor_pages WHERE check_id = ?'),
        countOf: p(
          'SELECT count(*) FROM monitor_pages INDEXED BY monitor_pages_by_status WHERE check_id = ? AND status = ?',
        ),
      },
      snapshot: p('SELECT markdown, scrape_id, at FROM monitor_snapshots WHERE monitor_id = ? AND key = ?'),
      putSnapshot: p(
        'INSERT OR REPLACE INTO monitor_snapshots (monitor_id, key, markdown, scrape_id, at) VALUES (?, ?, ?, ?, ?)',
      ),
      deleteSnapshot: p('DELETE FROM monitor_snapshots WHERE monitor_id = ? AND key = ?'),
      // `key >= prefix` lets the primary key skip to the first match; substr keeps only the prefixed ones.
      snapshotKeys: p(
        'SELECT key FROM monitor_snapshots WHERE monitor_id = ?1 AND key >= ?2 AND substr(key, 1, length(?2)) = ?2',
      ),
    };
  }

  /** Runs a read at once; its failure reaches the caller as a rejected promise (the store's 503). */
  private read<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(this.sql.read(fn));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  get(id: string): Promise<MonitorRecord | null> {
    return this.read(() => {
      const row = this.q.get.get(id) as Row | undefined;
      return row ? toMonitor(row) : null;
    });
  }

  put(m: MonitorRecord): Promise<void> {
    return this.sql.write(() => this.write(m));
  }

  /** Compared and written in one write: this process is the file's only writer, and a write runs whole. */
  replaceIf(expected: MonitorRecord, next: MonitorRecord): Promise<boolean> {
    return this.sql.write(() => {
      const row = this.q.get.get(expected.id) as Row | undefined;
      if (!row || JSON.stringify(toMonitor(row)) !== JSON.stringify(expected)) return false;
      this.write(next);
      return true;
    });
  }

  private write(m: MonitorRecord): void {
    const summary = m.lastCheckSummary === null ? null : JSON.stringify(m.lastCheckSummary);
    this.q.put.run(
      m.id,
      m.name,
      m.status,
      JSON.stringify(m.config),
      m.cron,
      m.timezone,
      m.nextRunAt,
      m.lastRunAt,
      m.currentCheckId,
      summary,
      m.retentionDays,
      m.createdAt,
      m.updatedAt,
      m.owner,
    );
  }

  count(owner: string): Promise<number> {
    return this.read(() => Number((this.q.countOf.get(owner) as Row)[0]));
  }

  list(
    owner: string | null,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }> {
    return this.read(() => {
      const rows = owner === null ? this.q.list.all(limit, offset) : this.q.listOf.all(owner, limit, offset);
      const total = owner === null ? this.q.count.get() : this.q.countOf.get(owner);
      return { monitors: (rows as Row[]).map(toMonitor), total: Number((total as Row)[0]) };
    });
  }

  delete(id: string): Promise<boolean> {
    return this.sql.write(() => {
      const existed = this.q.delete.run(id).changes > 0;
      this.q.deletePagesOfMonitor.run(id);
      this.q.deleteChecks.run(id);
      this.q.deleteSnapshots.run(id);
      return existed;
    });
  }

  due(now: number): Promise<MonitorRecord[]> {
    return this.read(() => (this.q.due.all(now) as Row[]).map(toMonitor));
  }

  advance(id: string, from: number, to: number | null): Promise<boolean> {
    return this.sql.write(() => this.q.advance.run(to, id, from).changes === 1);
  }

  putCheck(c: CheckRecord): Promise<void> {
    return this.sql.write(
      () =>
        void this.q.putCheck.run(
          c.id,
          c.monitorId,
          c.status,
          c.trigger,
          c.scheduledFor,
          c.startedAt,
          c.finishedAt,
          JSON.stringify(c.summary),
          JSON.stringify(c.targetResults),
          JSON.stringify(c.notificationStatus ?? null),
          c.error,
          c.createdAt,
          c.updatedAt,
        ),
    );
  }

  check(monitorId: string, checkId: string): Promise<CheckRecord | null> {
    return this.read(() => {
      const row = this.q.check.get(checkId, monitorId) as Row | undefined;
      return row ? toCheck(row) : null;
    });
  }

  checks(
    monitorId: string,
    offset: number,
    limit: number,
    status?: CheckStatus,
  ): Promise<{ checks: CheckRecord[]; total: number }> {
    return this.read(() => {
      const { rows, total } = selection(this.q.checks, monitorId, status, limit, offset);
      return { checks: rows.map(toCheck), total };
    });
  }

  addPages(checkId: string, pages: CheckPage[]): Promise<void> {
    return this.sql.write(() => {
      const first = Number((this.q.nextSeq.get(checkId) as Row)[0]);
      pages.forEach((page, i) => {
        const detail = JSON.stringify(page.detail);
        this.q.addPage.run(
          checkId,
          first + i,
          page.id,
          page.targetId,
          page.url,
          page.status,
          detail,
          page.createdAt,
        );
      });
    });
  }

  pages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: CheckPage[]; total: number }> {
    return this.read(() => {
      const { rows, total } = selection(this.q.pages, checkId, status, limit, skip);
      return { pages: rows.map(toPage), total };
    });
  }

  snapshot(monitorId: string, key: string): Promise<Snapshot | null> {
    return this.read(() => {
      const row = this.q.snapshot.get(monitorId, key) as Row | undefined;
      if (!row) return null;
      return { markdown: row[0] as string, scrapeId: row[1] as string, at: Number(row[2]) };
    });
  }

  putSnapshot(monitorId: string, key: string, s: Snapshot): Promise<void> {
    return this.sql.write(() => void this.q.putSnapshot.run(monitorId, key, s.markdown, s.scrapeId, s.at));
  }

  deleteSnapshot(monitorId: string, key: string): Promise<void> {
    return this.sql.write(() => void this.q.deleteSnapshot.run(monitorId, key));
  }

  snapshotKeys(monitorId: string, prefix: string): Promise<string[]> {
    return this.read(() =>
      (this.q.snapshotKeys.all(monitorId, prefix) as Row[]).map((r) => r[0] as string).sort(),
    );
  }

  purgeChecks(monitorId: string, before: number): Promise<number> {
    return this.sql.write(() => {
      this.q.purgePages.run(monitorId, before);
      return this.q.purgeChecks.run(monitorId, before).changes;
    });
  }
}

/** The queries of a paged list: every row of an owner, or those of one status, and how many there are. */
interface Selection {
  all: Statement;
  of: Statement;
  count: Statement;
  countOf: Statement;
}

/** Rows of `owner` (optionally one status) from `offset`, at most `limit`, with the total of that selection. */
function selection(
  q: Selection,
  owner: string,
  status: string | undefined,
  limit: number,
  offset: number,
): { rows: Row[]; total: number } {
  const rows =
    status === undefined ? q.all.all(owner, limit, offset) : q.of.all(owner, status, limit, offset);
  const count = status === undefined ? q.count.get(owner) : q.countOf.get(owner, status);
  return { rows: rows as Row[], total: Number((count as Row)[0]) };
}

/** `?, ?, …` for `n` values. */
function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
