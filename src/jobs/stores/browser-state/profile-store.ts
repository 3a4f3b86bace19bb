import type { BrowserState } from '../../../engines/cookie-jar.js';
import { ContentTooLargeError, StoreUnavailableError } from '../../../errors.js';
import { ProfileSeal } from './profile-seal.js';

/**
 * The largest state a profile keeps, as JSON: a logged-in session is a few KB of cookies and local storage;
 * a site filling local storage (megabytes an origin) must not fill the store.
 */
export const MAX_PROFILE_BYTES = 1024 * 1024;

/** A profile as an adapter stores it: the state (JSON, sealed with PROFILE_SECRET) and what lists show. */
export interface ProfileRecord {
  name: string;
  /** The BrowserState as JSON; AES-256-GCM sealed when PROFILE_SECRET is set (profile-seal.ts). */
  body: string;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  /** Cookies held, and their domains: shown by the list without opening the body. */
  cookies: number;
  domains: string[];
}

/**
 * Named browser states (cookies and local storage) beside the jobs: the SQLite file, Redis, or memory. Contract
 * (one suite runs against each adapter, through `Profiles`):
 * - `put` replaces what the name held; `get` answers the newest `put`, or null;
 * - `list` answers every record held, in name order (expired ones may still be there until `purge`);
 * - `delete` answers whether there was one; `purge(now)` drops records whose `expiresAt` is past (Redis lets
 *   them expire on its own).
 */
export interface ProfileStore {
  get(name: string): Promise<ProfileRecord | null>;
  put(record: ProfileRecord): Promise<void>;
  list(): Promise<ProfileRecord[]>;
  delete(name: string): Promise<boolean>;
  purge(now: number): Promise<number>;
}

/**
 * The profiles of a process whose job store could not be opened (DATA_DIR held by another process, or
 * unreadable): every call is the 503 naming why, as the job routes answer. Profiles kept in memory instead
 * would be lost at exit, and a list would show none of the stored ones.
 */
export class UnavailableProfileStore implements ProfileStore {
  constructor(private readonly reason: string) {}

  private refuse(): Promise<never> {
    return Promise.reject(new StoreUnavailableError(`Profile store unavailable: ${this.reason}`));
  }

  get(): Promise<ProfileRecord | null> {
    return this.refuse();
  }

  put(): Promise<void> {
    return this.refuse();
  }

  list(): Promise<ProfileRecord[]> {
    return this.refuse();
  }

  delete(): Promise<boolean> {
    return this.refuse();
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // nothing to purge here; the periodic purge must not fail
  }
}

/** A process's own profiles (tests). */
export class MemoryProfileStore implements ProfileStore {
  private readonly records = new Map<string, ProfileRecord>();

  get(name: string): Promise<ProfileRecord | null> {
    return Promise.resolve(this.records.get(name) ?? null);
  }

  put(record: ProfileRecord): Promise<void> {
    this.records.set(record.name, record);
    return Promise.resolve();
  }

  list(): Promise<ProfileRecord[]> {
    return Promise.resolve([...this.records.values()].sort((a, b) => a.name.localeCompare(b.name)));
  }

  delete(name: string): Promise<boolean> {
    return Promise.resolve(this.records.delete(name));
  }

  purge(now: number): Promise<number> {
    let dropped = 0;
    for (const [name, record] of this.records) {
      if (record.expiresAt > now) continue;
      this.records.delete(name);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}

/** What the routes and the CLI show of a profile: never a cookie's value. */
export interface ProfileSummary {
  name: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  cookies: number;
  domains: string[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

function summaryOf(r: ProfileRecord): ProfileSummary {
  const { name, cookies, domains } = r;
  return {
    name,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    expiresAt: iso(r.expiresAt),
    cookies,
    domains,
  };
}

/**
 * The profiles of this service over one ProfileStore: sealing (PROFILE_SECRET) and expiry (PROFILE_TTL_DAYS
 * after the last save; an expired profile is absent everywhere, and purged later).
 */
export class Profiles {
  private readonly seal: ProfileSeal;

  constructor(
    private readonly store: ProfileStore,
    private readonly options: { ttlMs: number; secret: string | null },
  ) {
    this.seal = new ProfileSeal(options.secret);
  }

  private async live(name: string, now: number): Promise<ProfileRecord | null> {
    const record = await this.store.get(name);
    return record && record.expiresAt > now ? record : null;
  }

  /** The stored state, or null when there is none (or it expired). */
  async state(name: string, now = Date.now()): Promise<BrowserState | null> {
    const record = await this.live(name, now);
    return record ? (JSON.parse(this.seal.open(name, record.body)) as BrowserState) : null;
  }

  /** Stores `state` under `name` (created, or replaced keeping its creation time); its expiry starts again. */
  async save(name: string, state: BrowserState, now = Date.now()): Promise<ProfileSummary> {
    const json = JSON.stringify(state);
    if (Buffer.byteLength(json) > MAX_PROFILE_BYTES) {
      throw new ContentTooLargeError(
        `profile '${name}' not saved: its state (cookies and local storage) is ${Buffer.byteLength(json)} bytes, over ${MAX_PROFILE_BYTES}`,
      );
    }
    const before = await this.live(name, now);
    const domains = [...new Set(state.cookies.map((c) => c.domain.replace(/^\./, '')))].sort();
    const record: ProfileRecord = {
      name,
      body: this.seal.seal(name, json),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
      expiresAt: now + this.options.ttlMs,
      cookies: state.cookies.length,
      domains,
    };
    await this.store.put(record);
    return summaryOf(record);
  }

  async summary(name: string, now = Date.now()): Promise<ProfileSummary | null> {
    const record = await this.live(name, now);
    return record ? summaryOf(record) : null;
  }

  async list(now = Date.now()): Promise<ProfileSummary[]> {
    return (await this.store.list()).filter((r) => r.expiresAt > now).map(summaryOf);
  }

  /** Whether a (live) profile was there. */
  async delete(name: string, now = Date.now()): Promise<boolean> {
    const existed = (await this.live(name, now)) !== null;
    await this.store.delete(name);
    return existed;
  }

  purge(now = Date.now()): Promise<number> {
    return this.store.purge(now);
  }
}
