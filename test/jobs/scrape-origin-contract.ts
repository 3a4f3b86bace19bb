import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  ScrapeOrigin,
  ScrapeOriginStore,
} from '../../src/jobs/stores/browser-state/scrape-origin-store.js';
import { ownerOf } from '../../src/tenants/tenant.js';

export interface ScrapeOriginHarness {
  store: ScrapeOriginStore;
  /** The process restarts (or another process of the fleet reads): a durable adapter finds what it stored. */
  reopen?: () => Promise<ScrapeOriginStore>;
  close(): Promise<void>;
}

const origin = (scrapeId: string, extra: Partial<ScrapeOrigin> = {}): ScrapeOrigin => ({
  scrapeId,
  owner: 'team-a',
  url: `https://a.test/${scrapeId}`,
  options: { headers: { 'x-team': 'blue' }, mobile: true, waitFor: 500, profile: { name: 'acct' } },
  createdAt: Date.now(),
  keepUntil: Date.now() + 3_600_000,
  sessionId: null,
  ...extra,
});

/** The scrape origin store's contract (scrape-origin-store.ts), run against every adapter. */
export function scrapeOriginContract(name: string, make: () => Promise<ScrapeOriginHarness>): void {
  describe(`ScrapeOriginStore contract: ${name}`, () => {
    test('put, get from another process, replace with the session opened on it', async (t) => {
      const h = await make();
      t.after(() => h.close());
      assert.equal(await h.store.get('none'), null);
      const first = origin('s1');
      await h.store.put(first);
      await h.store.put(origin('s2', { url: 'https://b.test/' }));
      const other = h.reopen ? await h.reopen() : h.store;
      assert.deepEqual(await other.get('s1'), first);
      assert.equal((await other.get('s2'))?.url, 'https://b.test/');
      await other.put({ ...first, sessionId: 'sess-1' });
      assert.equal((await other.get('s1'))?.sessionId, 'sess-1');
      assert.deepEqual((await other.get('s1'))?.options, first.options);
    });

    test("the tenant of a scrape is kept; a record written before tenants is default's", async (t) => {
      const h = await make();
      t.after(() => h.close());
      const { owner: _, ...before } = origin('old');
      await h.store.put(before);
      await h.store.put(origin('b', { owner: 'team-b' }));
      const other = h.reopen ? await h.reopen() : h.store;
      assert.equal(ownerOf((await other.get('old'))!), 'default');
      assert.equal((await other.get('b'))?.owner, 'team-b');
      assert.equal((await other.get('s-none'))?.owner, undefined);
    });

    test('a record past keepUntil is gone; purge drops it', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const now = Date.now();
      await h.store.put(origin('gone', { keepUntil: now + 200 }));
      await h.store.put(origin('kept'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      await h.store.purge(now + 1000);
      assert.equal(await h.store.get('gone'), null);
      assert.equal((await h.store.get('kept'))?.scrapeId, 'kept');
    });
  });
}
