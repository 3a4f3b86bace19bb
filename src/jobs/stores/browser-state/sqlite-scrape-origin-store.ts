import type { ScrapeOrigin, ScrapeOriginStore } from './scrape-origin-store.js';
import { prepare } from '../sqlite.js';
import type { SqliteDb } from '../sqlite.js';

type Row = [string];

/** Records past their `keepUntil` are dropped at a write at most this often. */
const PURGE_EVERY_MS = 600_000;

/** The scrape origins in the embedded SQLite file (table `scrape_origins`, the record as JSON). */
export class SqliteScrapeOriginStore implements ScrapeOriginStore {
  private readonly q;
  private purgedAt = 0;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      get: p('SELECT body FROM scrape_origins WHERE scrape_id = ? AND keep_until > ?'),
      put: p('INSERT OR REPLACE INTO scrape_origins (scrape_id, keep_until, body) VALUES (?, ?, ?)'),
      purge: p('DELETE FROM scrape_origins WHERE keep_until <= ?'),
    };
  }

  get(scrapeId: string): Promise<ScrapeOrigin | null> {
    try {
      const row = this.sql.read(() => this.q.get.get(scrapeId, Date.now()) as Row | undefined);
      return Promise.resolve(row ? (JSON.parse(row[0]) as ScrapeOrigin) : null);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  put(o: ScrapeOrigin): Promise<void> {
    const now = Date.now();
    return this.sql.write(() => {
      this.q.put.run(o.scrapeId, o.keepUntil, JSON.stringify(o));
      if (now - this.purgedAt < PURGE_EVERY_MS) return;
      this.purgedAt = now;
      this.q.purge.run(now);
    });
  }

  purge(now: number): Promise<number> {
    return this.sql.write(() => this.q.purge.run(now).changes);
  }
}
