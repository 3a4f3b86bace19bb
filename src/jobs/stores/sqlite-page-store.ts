import type { PageStore, StoredPage } from './page-store.js';
import { prepare } from './sqlite.js';
import type { SqliteDb } from './sqlite.js';

/** The page store in the embedded SQLite file (table `pages`). */
export class SqlitePageStore implements PageStore {
  private readonly q;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      get: p('SELECT body, at FROM pages WHERE key = ?'),
      put: p('INSERT OR REPLACE INTO pages (key, body, at) VALUES (?, ?, ?)'),
      purge: p('DELETE FROM pages WHERE at < ?'),
    };
  }

  get(key: string): Promise<StoredPage | null> {
    try {
      const row = this.sql.read(() => this.q.get.get(key) as [string, number] | undefined);
      return Promise.resolve(row ? { body: row[0], at: Number(row[1]) } : null);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  put(key: string, body: string, at: number): Promise<void> {
    return this.sql.write(() => void this.q.put.run(key, body, at));
  }

  purge(before: number): Promise<number> {
    return this.sql.write(() => this.q.purge.run(before).changes);
  }
}
