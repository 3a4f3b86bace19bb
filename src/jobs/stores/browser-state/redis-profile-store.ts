import type { Redis } from 'ioredis';
import { DEFAULT_TENANT } from '../../../tenants/tenant.js';
import { byNameThenOwner } from './profile-store.js';
import type { ProfileRecord, ProfileStore } from './profile-store.js';
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
 * `expiresAt`, and a set of names per tenant (a name whose key has expired is dropped when listed).
 */
export class RedisProfileStore implements ProfileStore {
  constructor(private readonly redis: Redis) {}

  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  get(owner: string, name: string): Promise<ProfileRecord | null> {
    return this.call(async () => {
      const raw = await this.redis.get(k.profile(owner, name));
      return raw === null ? null : recordOf(raw);
    });
  }

  put(record: ProfileRecord): Promise<void> {
    return this.call(async () => {
      const multi = this.redis
        .multi()
        .set(k.profile(record.owner, record.name), JSON.stringify(record), 'PXAT', record.expiresAt)
        .sadd(k.names(record.owner), record.name);
      if (record.owner !== DEFAULT_TENANT) multi.sadd(k.owners, record.owner);
      await multi.exec();
    });
  }

  list(owner: string | null): Promise<ProfileRecord[]> {
    return this.call(async () => {
      const owners = owner !== null ? [owner] : [DEFAULT_TENANT, ...(await this.redis.smembers(k.owners))];
      const lists = await Promise.all(owners.map((o) => this.listOf(o)));
      return lists.flat().sort(byNameThenOwner);
    });
  }

  private async listOf(owner: string): Promise<ProfileRecord[]> {
    const names = await this.redis.smembers(k.names(owner));
    if (names.length === 0) return [];
    const raws = await this.redis.mget(names.map((name) => k.profile(owner, name)));
    const gone = names.filter((_, i) => raws[i] === null);
    if (gone.length > 0) await this.redis.srem(k.names(owner), ...gone);
    return raws.filter((raw): raw is string => raw !== null).map(recordOf);
  }

  delete(owner: string, name: string): Promise<boolean> {
    return this.call(async () => {
      const [removed] =
        (await this.redis.multi().del(k.profile(owner, name)).srem(k.names(owner), name).exec()) ?? [];
      return Number(removed?.[1] ?? 0) > 0;
    });
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
