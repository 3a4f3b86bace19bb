import { byNewest } from './session-store.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { prepare } from '../sqlite.js';
import type { SqliteDb } from '../sqlite.js';

type Row = [string];

/** The session store in the embedded SQLite file (table `browser_sessions`, the record as JSON). */
export class SqliteSessionStore implements SessionStore {
  private readonly q;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      get: p('SELECT body FROM browser_sessions WHERE id = ?'),
      put: p(
        'INSERT OR REPLACE INTO browser_sessions (id, status, created_at, keep_until, body) VALUES (?, ?, ?, ?, ?)',
      ),
      list: p('SELECT body FROM browser_sessions ORDER BY created_at DESC, id'),
      listOf: p('SELECT body FROM browser_sessions WHERE status = ? ORDER BY created_at DESC, id'),
      purge: p('DELETE FROM browser_sessions WHERE keep_until <= ?'),
    };
  }

  get(id: string): Promise<SessionRecord | null> {
    try {
      const row = this.sql.read(() => this.q.get.get(id) as Row | undefined);
      return Promise.resolve(row ? (JSON.parse(row[0]) as SessionRecord) : null);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  put(r: SessionRecord): Promise<void> {
    return this.sql.write(
      () => void this.q.put.run(r.id, r.status, r.createdAt, r.keepUntil, JSON.stringify(r)),
    );
  }

  list(status?: SessionRecord['status']): Promise<SessionRecord[]> {
    try {
      const rows = this.sql.read(
        () => (status === undefined ? this.q.list.all() : this.q.listOf.all(status)) as Row[],
      );
      return Promise.resolve(rows.map((row) => JSON.parse(row[0]) as SessionRecord).sort(byNewest));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  purge(now: number): Promise<number> {
    return this.sql.write(() => this.q.purge.run(now).changes);
  }
}
