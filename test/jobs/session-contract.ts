import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionRecord, SessionStore } from '../../src/jobs/stores/browser-state/session-store.js';

export interface SessionStoreHarness {
  store: SessionStore;
  /** The process restarts (or another process of the fleet reads): a durable adapter finds what it stored. */
  reopen?: () => Promise<SessionStore>;
  close(): Promise<void>;
}

const record = (id: string, createdAt: number, extra: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  status: 'active',
  createdAt,
  expiresAt: createdAt + 600_000,
  lastActivity: createdAt,
  ttl: 600,
  activityTtl: 300,
  holder: 'host-a:123:abcd1234',
  profile: null,
  endedAt: null,
  endCause: null,
  keepUntil: createdAt + 3_600_000,
  ...extra,
});

/** The session store's contract (session-store.ts), run against every adapter. */
export function sessionStoreContract(name: string, make: () => Promise<SessionStoreHarness>): void {
  describe(`SessionStore contract: ${name}`, () => {
    test('put, get, list by status newest first, replace on end', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const now = Date.now();
      assert.equal(await h.store.get('none'), null);
      await h.store.put(record('s1', now - 2000));
      await h.store.put(record('s2', now - 1000, { profile: 'acct' }));
      await h.store.put(record('s3', now, { holder: 'host-b:9:ffff0000' }));
      const other = h.reopen ? await h.reopen() : h.store;
      assert.deepEqual((await other.get('s2'))?.profile, 'acct');
      assert.deepEqual(
        (await other.list()).map((r) => r.id),
        ['s3', 's2', 's1'],
      );
      await other.put({ ...record('s2', now - 1000), status: 'destroyed', endedAt: now, endCause: 'idle' });
      assert.deepEqual(
        (await other.list('active')).map((r) => r.id),
        ['s3', 's1'],
      );
      const ended = await other.list('destroyed');
      assert.deepEqual(
        ended.map((r) => [r.id, r.endCause, r.endedAt]),
        [['s2', 'idle', now]],
      );
      assert.equal((await other.get('s3'))?.holder, 'host-b:9:ffff0000');
    });

    test('purge drops records past keepUntil', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const now = Date.now();
      await h.store.put(record('gone', now - 10_000, { keepUntil: now + 200 }));
      await h.store.put(record('kept', now - 10_000, { keepUntil: now + 3_600_000 }));
      await h.store.purge(now + 1000);
      // Redis expires keys on its own clock instead of purging by time.
      if (name === 'redis') await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(await h.store.get('gone'), null);
      assert.deepEqual(
        (await h.store.list()).map((r) => r.id),
        ['kept'],
      );
    });
  });
}
