import type { ChainableCommander, Redis } from 'ioredis';
import { storeCall } from '../sqlite.js';

/**
 * Writes a record if its stored one's numeric field still has the value read ('' : no record). Only that field is
 * decoded; the record is written as the caller encoded it. KEYS: the record. ARGV: field, expected, JSON, expiry
 * (ms since the epoch), then pairs of (index set, member).
 */
const REPLACE_IF = `
local raw = redis.call('GET', KEYS[1])
if ARGV[2] == '' then
  if raw then return 0 end
elseif not raw or tonumber(cjson.decode(raw)[ARGV[1]]) ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PXAT', ARGV[4])
for i = 5, #ARGV, 2 do redis.call('SADD', ARGV[i], ARGV[i + 1]) end
return 1`;

type Scripted = { pwRecordReplaceIf(key: string, ...args: string[]): Promise<number> };

/** A set of the record's index: its key, and the member that names the record there. */
export interface IndexEntry {
  set: string;
  member: string;
}

/**
 * Records kept in Redis as the fleet shares them: each a JSON string that Redis expires at a time of the
 * record's, optionally named in an index set (a member whose record expired is dropped when the set is listed).
 * Every failure reaches callers as the store's 503 (STORE_UNAVAILABLE) with the reason. The profile, session and
 * scrape-origin stores are this with their own keys.
 */
export class RedisExpiringRecords<T> {
  constructor(
    private readonly redis: Redis,
    /** A record as read back (older records may lack fields that are filled in here). */
    private readonly decode: (raw: string) => T = (raw) => JSON.parse(raw) as T,
  ) {
    redis.defineCommand('pwRecordReplaceIf', { numberOfKeys: 1, lua: REPLACE_IF });
  }

  get(key: string): Promise<T | null> {
    return storeCall(async () => {
      const raw = await this.redis.get(key);
      return raw === null ? null : this.decode(raw);
    });
  }

  /** Writes the record until `expiresAt` (ms since the epoch), named in `indexes`; `also` adds to the write. */
  put(
    key: string,
    record: T,
    expiresAt: number,
    indexes: IndexEntry[] = [],
    also?: (multi: ChainableCommander) => void,
  ): Promise<void> {
    return storeCall(async () => {
      const multi = this.redis.multi().set(key, JSON.stringify(record), 'PXAT', expiresAt);
      for (const index of indexes) multi.sadd(index.set, index.member);
      also?.(multi);
      await multi.exec();
    });
  }

  /**
   * `put`, only if the stored record's `field` (a number) is still `expected` (null: no record is stored);
   * whether it wrote. The compare reads that one field in Lua; the record is written as given.
   */
  replaceIf(
    key: string,
    field: string,
    expected: number | null,
    record: T,
    expiresAt: number,
    indexes: IndexEntry[] = [],
  ): Promise<boolean> {
    return storeCall(async () => {
      const stamp = expected === null ? '' : String(expected);
      const args = [
        field,
        stamp,
        JSON.stringify(record),
        String(expiresAt),
        ...indexes.flatMap((i) => [i.set, i.member]),
      ];
      const done = await (this.redis as unknown as Scripted).pwRecordReplaceIf(key, ...args);
      return done === 1;
    });
  }

  /** The records named in `set` that still exist; the members of expired ones leave the set. */
  list(set: string, keyOf: (member: string) => string): Promise<T[]> {
    return storeCall(async () => {
      const members = await this.redis.smembers(set);
      if (members.length === 0) return [];
      const raws = await this.redis.mget(members.map(keyOf));
      const gone = members.filter((_, i) => raws[i] === null);
      if (gone.length > 0) await this.redis.srem(set, ...gone);
      return raws.filter((raw): raw is string => raw !== null).map(this.decode);
    });
  }

  /** Removes the record and its index entry; whether it existed. */
  delete(key: string, index?: IndexEntry): Promise<boolean> {
    return storeCall(async () => {
      const multi = this.redis.multi().del(key);
      if (index) multi.srem(index.set, index.member);
      const [removed] = (await multi.exec()) ?? [];
      return Number(removed?.[1] ?? 0) > 0;
    });
  }
}
