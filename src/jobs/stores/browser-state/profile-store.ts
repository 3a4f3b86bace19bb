import type { BrowserState } from '../../../engines/cookie-jar.js';
import { ContentTooLargeError, StoreUnavailableError } from '../../../errors.js';
import { DEFAULT_TENANT } from '../../../tenants/tenant.js';
import { ProfileSeal } from './profile-seal.js';

/**
 * The largest state a profile keeps, as JSON: a logged-in session is a few KB of cookies and local storage;
 * a site filling local storage (megabytes an origin) must not fill the store.
 */
export const MAX_PROFILE_BYTES = 1024 * 1024;

/** A profile as an adapter stores it: the state (JSON, sealed with PROFILE_SECRET) and what lists show. */
export interface ProfileRecord {
  /** The tenant that saved it; a name is unique within its tenant (two tenants may each have `shop`). */
  owner: string;
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
 * Named browser states (cookies and local storage) beside the jobs: the SQLite file, Redis, or memory, keyed by
 * (owner, name). Contract (one suite runs against each adapter, through `Profiles`):
 * - `put` replaces what (owner, name) held; `get` answers the newest `put`, or null;
 * - `list(owner)` answers that tenant's records, `list(null)` every tenant's, in (name, owner) order (expired
 *   ones may still be there until `purge`);
 * - `delete` answers whether there was one; `purge(now)` drops records whose `expiresAt` is past (Redis lets
 *   them expire on its own);
 * - a record stored before profiles had owners is `default`'s.
 */
export interface ProfileStore {
  get(owner: string, name: string): Promise<ProfileRecord | null>;
  put(record: ProfileRecord): Promise<void>;
  /**
   * Writes `next` only if the stored record is still the one read (`expected`, compared by its `updatedAt`;
   * null: none is stored); whether it did.
   */
  replaceIf(expected: ProfileRecord | null, next: ProfileRecord): Promise<boolean>;
  list(owner: string | null): Promise<ProfileRecord[]>;
  delete(owner: string, name: string): Promise<boolean>;
  purge(now: number): Promise<number>;
}

/** Attempts of an update against saves of the same profile by other processes at once. */
const UPDATE_ATTEMPTS = 20;

/** The order every adapter lists profiles in: by name, then by owner. */
export const byNameThenOwner = (a: ProfileRecord, b: ProfileRecord): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0;

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

  replaceIf(): Promise<boolean> {
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
  /** By owner, then name. */
  private readonly records = new Map<string, Map<string, ProfileRecord>>();

  get(owner: string, name: string): Promise<ProfileRecord | null> {
    return Promise.resolve(this.records.get(owner)?.get(name) ?? null);
  }

  put(record: ProfileRecord): Promise<void> {
    const owned = this.records.get(record.owner) ?? new Map<string, ProfileRecord>();
    owned.set(record.name, record);
    this.records.set(record.owner, owned);
    return Promise.resolve();
  }

  replaceIf(expected: ProfileRecord | null, next: ProfileRecord): Promise<boolean> {
    const current = this.records.get(next.owner)?.get(next.name) ?? null;
    if ((current?.updatedAt ?? null) !== (expected?.updatedAt ?? null)) return Promise.resolve(false);
    return this.put(next).then(() => true);
  }

  list(owner: string | null): Promise<ProfileRecord[]> {
    const owned = owner === null ? [...this.records.values()] : [this.records.get(owner) ?? new Map()];
    return Promise.resolve(owned.flatMap((m) => [...m.values()]).sort(byNameThenOwner));
  }

  delete(owner: string, name: string): Promise<boolean> {
    return Promise.resolve(this.records.get(owner)?.delete(name) ?? false);
  }

  purge(now: number): Promise<number> {
    let dropped = 0;
    for (const owned of this.records.values()) {
      for (const [name, record] of owned) {
        if (record.expiresAt > now) continue;
        owned.delete(name);
        dropped++;
      }
    }
    return Promise.resolve(dropped);
  }
}

/** What the routes and the CLI show of a profile: never a cookie's value. */
export interface ProfileSummary {
  name: string;
  /** The tenant it belongs to. */
  tenant: string;
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
    tenant: r.owner,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    expiresAt: iso(r.expiresAt),
    cookies,
    domains,
  };
}

/**
 * What a sealed profile is bound to (the seal's associated data): its owner and name, so that a sealed state
 * copied under another tenant or name does not open. `default`'s is the name alone, as profiles were sealed
 * before they had owners.
 */
const sealedAs = (owner: string, name: string): string =>
  owner === DEFAULT_TENANT ? name : `${owner}:${name}`;

/**
 * The profiles of this service over one ProfileStore: sealing (PROFILE_SECRET) and expiry (PROFILE_TTL_DAYS
 * after the last save; an expired profile is absent everywhere, and purged later). Every profile is a tenant's
 * (`owner`): a name is looked up, saved and deleted within one tenant only.
 */
export class Profiles {
  private readonly seal: ProfileSeal;

  constructor(
    private readonly store: ProfileStore,
    private readonly options: { ttlMs: number; secret: string | null },
  ) {
    this.seal = new ProfileSeal(options.secret);
  }

  private async live(owner: string, name: string, now: number): Promise<ProfileRecord | null> {
    const record = await this.store.get(owner, name);
    return record && record.expiresAt > now ? record : null;
  }

  /** The stored state of `owner`'s profile `name`, or null when there is none (or it expired). */
  async state(owner: string, name: string, now = Date.now()): Promise<BrowserState | null> {
    const record = await this.live(owner, name, now);
    return record ? (JSON.parse(this.seal.open(sealedAs(owner, name), record.body)) as BrowserState) : null;
  }

  /** Stores `state` as `owner`'s `name` (created, or replaced keeping its creation time); its expiry starts again. */
  async save(owner: string, name: string, state: BrowserState, now = Date.now()): Promise<ProfileSummary> {
    const record = this.recordOf(owner, name, state, await this.live(owner, name, now), now);
    await this.store.put(record);
    return summaryOf(record);
  }

  /**
   * Stores what `change` makes of the state stored now (null: none), by compare-and-set: a save by another
   * process meanwhile is read again and changed, never overwritten (a job's shares saving one profile).
   */
  async update(
    owner: string,
    name: string,
    change: (stored: BrowserState | null) => BrowserState,
  ): Promise<ProfileSummary> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const now = Date.now();
      // The record as stored (an expired one too: it is what the compare must find), and the live one.
      const current = await this.store.get(owner, name);
      const before = current && current.expiresAt > now ? current : null;
      const stored = before
        ? (JSON.parse(this.seal.open(sealedAs(owner, name), before.body)) as BrowserState)
        : null;
      // Strictly later than the record read, so that the compare tells the two apart.
      const at = Math.max(now, (current?.updatedAt ?? 0) + 1);
      const record = this.recordOf(owner, name, change(stored), before, at);
      if (await this.store.replaceIf(current, record)) return summaryOf(record);
    }
    throw new StoreUnavailableError(`profile '${name}' changed ${UPDATE_ATTEMPTS} times while being saved`);
  }

  private recordOf(
    owner: string,
    name: string,
    state: BrowserState,
    before: ProfileRecord | null,
    now: number,
  ): ProfileRecord {
    const json = JSON.stringify(state);
    if (Buffer.byteLength(json) > MAX_PROFILE_BYTES) {
      throw new ContentTooLargeError(
        `profile '${name}' not saved: its state (cookies and local storage) is ${Buffer.byteLength(json)} bytes, over ${MAX_PROFILE_BYTES}`,
      );
    }
    const domains = [...new Set(state.cookies.map((c) => c.domain.replace(/^\./, '')))].sort();
    return {
      owner,
      name,
      body: this.seal.seal(sealedAs(owner, name), json),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
      expiresAt: now + this.options.ttlMs,
      cookies: state.cookies.length,
      domains,
    };
  }

  async summary(owner: string, name: string, now = Date.now()): Promise<ProfileSummary | null> {
    const record = await this.live(owner, name, now);
    return record ? summaryOf(record) : null;
  }

  /** `owner`'s live profiles; every tenant's with null. */
  async list(owner: string | null, now = Date.now()): Promise<ProfileSummary[]> {
    return (await this.store.list(owner)).filter((r) => r.expiresAt > now).map(summaryOf);
  }

  /** Whether a (live) profile was there. */
  async delete(owner: string, name: string, now = Date.now()): Promise<boolean> {
    const existed = (await this.live(owner, name, now)) !== null;
    await this.store.delete(owner, name);
    return existed;
  }

  purge(now = Date.now()): Promise<number> {
    return this.store.purge(now);
  }
}
