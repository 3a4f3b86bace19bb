import { prepare } from '../sqlite.js';
import type { SqliteDb } from '../sqlite.js';
import { USAGE_FIELDS, addsAnything, byTenantThenDay } from './usage-store.js';
import type { UsageAdd, UsageDay, UsageStore } from './usage-store.js';

type Row = [day: string, tenant: string, ...counts: number[]];

const COLUMNS = 'day, tenant, pages, browser_ms, documents, llm_tokens, credits';

/** Days older than USAGE_KEEP_DAYS are dropped at a write at most this often. */
const PURGE_EVERY_MS = 3_600_000;

const rowToDay = ([day, tenant, ...counts]: Row): UsageDay => {
  const d = { day, tenant } as UsageDay;
  USAGE_FIELDS.forEach((field, i) => (d[field] = counts[i]!));
  return d;
};

/**
 * Usage in the embedded SQLite file: one row per (day, tenant) in `usage_days`, added to by an UPSERT. Adds of
 * one event-loop turn share the file's group commit (SqliteDb.write), so a burst of pages is one commit.
 */
export class SqliteUsageStore implements UsageStore {
  private readonly q;
  private purgedAt = 0;

  constructor(
    private readonly sql: SqliteDb,
    /** The oldest day kept, from now (USAGE_KEEP_DAYS ago); purged at a write now and then. */
    private readonly oldestKept: () => string,
  ) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      add: p(
        `INSERT INTO usage_days (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (day, tenant) DO UPDATE SET pages = pages + excluded.pages,
           browser_ms = browser_ms + excluded.browser_ms, documents = documents + excluded.documents,
           llm_tokens = llm_tokens + excluded.llm_tokens, credits = credits + excluded.credits`,
      ),
      ofTenant: p(`SELECT ${COLUMNS} FROM usage_days WHERE tenant = ? AND day >= ? AND day <= ?`),
      ofAll: p(`SELECT ${COLUMNS} FROM usage_days WHERE day >= ? AND day <= ?`),
      purge: p('DELETE FROM usage_days WHERE day < ?'),
    };
  }

  add(adds: UsageAdd[]): Promise<void> {
    const now = Date.now();
    return this.sql.write(() => {
      for (const { tenant, day, counts } of adds.filter((a) => addsAnything(a.counts)))
        this.q.add.run(day, tenant, ...USAGE_FIELDS.map((field) => Math.round(counts[field] ?? 0)));
      if (now - this.purgedAt < PURGE_EVERY_MS) return;
      this.purgedAt = now;
      this.q.purge.run(this.oldestKept());
    });
  }

  days(from: string, to: string, tenant?: string): Promise<UsageDay[]> {
    try {
      const rows = this.sql.read(() =>
        tenant === undefined ? this.q.ofAll.all(from, to) : this.q.ofTenant.all(tenant, from, to),
      ) as Row[];
      // Sorted in JS: SQLite's binary collation and localeCompare may order tenant names differently.
      return Promise.resolve(rows.map(rowToDay).sort(byTenantThenDay));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  purge(before: string): Promise<number> {
    return this.sql.write(() => this.q.purge.run(before).changes);
  }
}
