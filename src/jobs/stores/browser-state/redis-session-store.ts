import type { Redis } from 'ioredis';
import { RedisExpiringRecords } from './redis-expiring-records.js';
import { byNewest } from './session-store.js';
import type { SessionRecord, SessionStore } from './session-store.js';

const IDS = 'pw:browser-sessions';
const keyOf = (id: string): string => `pw:browser-session:${id}`;

/**
 * The session store in Redis, shared by the fleet: each record a string `pw:browser-session:<id>` that Redis
 * expires at its `keepUntil`, and the set `pw:browser-sessions` of ids.
 */
export class RedisSessionStore implements SessionStore {
  private readonly records: RedisExpiringRecords<SessionRecord>;

  constructor(redis: Redis) {
    this.records = new RedisExpiringRecords(redis);
  }

  get(id: string): Promise<SessionRecord | null> {
    return this.records.get(keyOf(id));
  }

  put(record: SessionRecord): Promise<void> {
    return this.records.put(keyOf(record.id), record, record.keepUntil, [{ set: IDS, member: record.id }]);
  }

  async list(status?: SessionRecord['status']): Promise<SessionRecord[]> {
    const records = await this.records.list(IDS, keyOf);
    return records.filter((r) => status === undefined || r.status === status).sort(byNewest);
  }

  purge(): Promise<number> {
    return Promise.resolve(0); // keys expire on their own
  }
}
