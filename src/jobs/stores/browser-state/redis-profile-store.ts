import type { Redis } from 'ioredis';
import { DEFAULT_TENANT } from '../../../tenants/tenant.js';
import { byNameThenOwner } from './profile-store.js';
import type { ProfileRecord, ProfileStore } from './profile-store.js';
import { RedisExpiringRecords } from './redis-expiring-records.js';
import { storeCall } from '../sqlite.js';

/**
 * Keys. `default`'s profiles keep the keys of a store written before profiles had owners (`pw:profile:<name>`,
 * and the set `pw:profiles` of names), so those are `default`'s with nothing to migrate; another tenant's are
 * `pw:profile:<owner>:<name>` in the set `pw:profiles:<owner>`. Neither a tenant's name nor a profile's holds
 * a `:`, so no two (owner, name) pairs share a key.
 */
const k = {
  profile: (owner: string, name: string) =>
    owner === DEFAULT_TENANT ? `pw:profile:${name}` : `pw:profile:${owner}:${name}`,
  names: (owner: string) => (owner === DEFAULT_TENANT ? 'pw:profiles' : `pw:profiles:${owner}`),
  /** The tenants that saved a profile (`default` is always looked at). */
  owners: 'pw:profile-owners',
};

/** A stored record; one written before profiles had owners is `default`'s. */
function recordOf(raw: string): ProfileRecord {
  const record = JSON.parse(raw) as ProfileRecord;
  record.owner ??= DEFAULT_TENANT;
  return record;
}

/**
 * The profile store in Redis, shared by the fleet: each profile a string that Redis expires at its
 * `expiresAt`, and a set of names per tenant.
 */
export class RedisProfileStore implements ProfileStore {
  private readonly records: RedisExpiringRecords<ProfileRecord>;

  constructor(private readonly redis: Redis) {
    this.records = new RedisExpiringRecords(redis, recordOf);
  }

  get(owner: string, name: string): Promise<ProfileRecord | null> {
    return this.records.get(k.profile(owner, name));
  }

  put(record: ProfileRecord): Promise<void> {
    const { owner, name } = record;
    return this.records.put(
      k.profile(owner, name),
      record,
      record.expiresAt,
      [{ set: k.names(owner), member: name }],
      (multi) => {
        if (owner !== DEFAULT_TENANT) multi.sadd(k.owners, owner);
      },
    );
  }

  /** Profiles are compared by `updatedAt` (a new save is always strictly later than the one it replaces). */
  replaceIf(expected: ProfileRecord | null, next: ProfileRecord): Promise<boolean> {
    const { owner, name } = next;
    const index = [
      { set: k.names(owner), member: name },
      ...(owner !== DEFAULT_TENANT ? [{ set: k.owners, member: owner }] : []),
    ];
    return this.records.replaceIf(
      k.profile(owner, name),
      'updatedAt',
      expected?.updatedAt ?? null,
      next,
      next.expiresAt,
      index,
    );
  }

  async list(owner: string | null): Promise<ProfileRecord[]> {
    const owners =
      owner !== null ? [owner] : [DEFAULT_TENANT, ...(await storeCall(() => this.redis.smembers(k.owners)))];
    const lists = await Promise.all(
      owners.map((o) => this.records.list(k.names(o), (name) => k.profile(o, name))),
    );
    return lists.flat().sort(byNameThenOwner);
  }

  delete(owner: string, name: string): Promise<boolean> {
    return this.records.delete(k.profile(owner, name), { set: k.names(owner), member: name });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
