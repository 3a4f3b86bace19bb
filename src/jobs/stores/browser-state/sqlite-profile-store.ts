import type { ProfileRecord, ProfileStore } from './profile-store.js';
import { prepare } from '../sqlite.js';
import type { SqliteDb } from '../sqlite.js';

type Row = [string, string, string, number, number, number, number, string];

const COLUMNS = 'owner, name, body, created_at, updated_at, expires_at, cookies, domains';

function recordOf(row: Row): ProfileRecord {
  return {
    owner: row[0],
    name: row[1],
    body: row[2],
    createdAt: Number(row[3]),
    updatedAt: Number(row[4]),
    expiresAt: Number(row[5]),
    cookies: Number(row[6]),
    domains: JSON.parse(row[7]) as string[],
  };
}

/** The profile store in the embedded SQLite file (table `profiles`, keyed by owner and name). */
export class SqliteProfileStore implements ProfileStore {
  private readonly q;

  constructor(private readonly sql: SqliteDb) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      get: p(`SELECT ${COLUMNS} FROM profiles WHERE owner = ? AND name = ?`),
      put: p(`INSERT OR REPLACE INTO profiles (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      list: p(`SELECT ${COLUMNS} FROM profiles ORDER BY name, owner`),
      listOf: p(`SELECT ${COLUMNS} FROM profiles WHERE owner = ? ORDER BY name`),
      delete: p('DELETE FROM profiles WHERE owner = ? AND name = ?'),
      purge: p('DELETE FROM profiles WHERE expires_at <= ?'),
    };
  }

  get(owner: string, name: string): Promise<ProfileRecord | null> {
    try {
      const row = this.sql.read(() => this.q.get.get(owner, name) as Row | undefined);
      return Promise.resolve(row ? recordOf(row) : null);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  put(r: ProfileRecord): Promise<void> {
    return this.sql.write(() => this.write(r));
  }

  /** Compared and written in one write: this process is the file's only writer, and a write runs whole. */
  replaceIf(expected: ProfileRecord | null, next: ProfileRecord): Promise<boolean> {
    return this.sql.write(() => {
      const row = this.q.get.get(next.owner, next.name) as Row | undefined;
      const current = row ? recordOf(row) : null;
      if ((current?.updatedAt ?? null) !== (expected?.updatedAt ?? null)) return false;
      this.write(next);
      return true;
    });
  }

  private write(r: ProfileRecord): void {
    this.q.put.run(
      r.owner,
      r.name,
      r.body,
      r.createdAt,
      r.updatedAt,
      r.expiresAt,
      r.cookies,
      JSON.stringify(r.domains),
    );
  }

  list(owner: string | null): Promise<ProfileRecord[]> {
    try {
      const rows = this.sql.read(() => (owner === null ? this.q.list.all() : this.q.listOf.all(owner)));
      return Promise.resolve((rows as Row[]).map(recordOf));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  delete(owner: string, name: string): Promise<boolean> {
    return this.sql.write(() => this.q.delete.run(owner, name).changes > 0);
  }

  purge(now: number): Promise<number> {
    return this.sql.write(() => this.q.purge.run(now).changes);
  }
}
