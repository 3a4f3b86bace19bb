import type { ProfileRecord, ProfileStore } from './profile-store.js';
import { prepare } from '../sqlite.js';
import type { SqliteDb } from '../sqlite.js';

type Row = [string, string, number, number, number, number, string];

const COLUMNS = 'name, body, created_at, updated_at, expires_at, cookies, domains';

function recordOf(row: Row): ProfileRecord {
  return {
    name: row[0],
    body: row[1],
    createdAt: Number(row[2]),
    updatedAt: Number(row[3]),
    expiresAt: Number(row[4]),
    cookies: Number(row[5]),
    domains: JSON.parse(row[6]) as string[],
  };
}

/** The profile store in the embedded SQLite file (table `profiles`). */
export class SqliteProfileStore implements ProfileStore {
  private readonly q;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      get: p(`SELECT ${COLUMNS} FROM profiles WHERE name = ?`),
      put: p(`INSERT OR REPLACE INTO profiles (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      list: p(`SELECT ${COLUMNS} FROM profiles ORDER BY name`),
      delete: p('DELETE FROM profiles WHERE name = ?'),
      purge: p('DELETE FROM profiles WHERE expires_at <= ?'),
    };
  }

  get(name: string): Promise<ProfileRecord | null> {
    try {
      const row = this.sql.read(() => this.q.get.get(name) as Row | undefined);
      return Promise.resolve(row ? recordOf(row) : null);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  put(r: ProfileRecord): Promise<void> {
    return this.sql.write(
      () =>
        void this.q.put.run(
          r.name,
          r.body,
          r.createdAt,
          r.updatedAt,
          r.expiresAt,
          r.cookies,
          JSON.stringify(r.domains),
        ),
    );
  }

  list(): Promise<ProfileRecord[]> {
    try {
      return Promise.resolve(this.sql.read(() => (this.q.list.all() as Row[]).map(recordOf)));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  delete(name: string): Promise<boolean> {
    return this.sql.write(() => this.q.delete.run(name).changes > 0);
  }

  purge(now: number): Promise<number> {
    return this.sql.write(() => this.q.purge.run(now).changes);
  }
}
