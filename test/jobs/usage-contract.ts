import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { UsageStore } from '../../src/jobs/stores/usage-state/usage-store.js';

export interface UsageHarness {
  store: UsageStore;
  /** This process restarted: what was added is there. */
  reopen?: () => Promise<UsageStore>;
  /** Another process on the same store at once (a fleet's); absent where one process holds the store. */
  another?: () => Promise<UsageStore>;
  /** The adapter drops old days with `purge` (Redis expires them instead). */
  purges: boolean;
  close(): Promise<void>;
}

const zero = { pages: 0, browserMs: 0, documents: 0, llmTokens: 0, credits: 0 };

/** The usage store's contract (usage-store.ts), run against every adapter. */
export function usageStoreContract(name: string, make: () => Promise<UsageHarness>): void {
  describe(`UsageStore contract: ${name}`, () => {
    test('adds sum per tenant and day; days answers a range, of one tenant or all, every counter present', async (t) => {
      const h = await make();
      t.after(() => h.close());
      assert.deepEqual(await h.store.days('2030-01-01', '2030-12-31'), []);
      await h.store.add([
        { tenant: 'team-b', day: '2030-01-02', counts: { pages: 2, credits: 2 } },
        { tenant: 'team-a', day: '2030-01-02', counts: { pages: 1, browserMs: 1500, documents: 1 } },
        { tenant: 'team-a', day: '2030-01-01', counts: { llmTokens: 70 } },
      ]);
      await h.store.add([{ tenant: 'team-a', day: '2030-01-02', counts: { pages: 3, llmTokens: 5 } }]);
      await h.store.add([{ tenant: 'team-a', day: '2030-02-01', counts: { pages: 9 } }]);
      await h.store.add([{ tenant: 'team-c', day: '2030-01-03', counts: {} }]); // adds nothing
      assert.deepEqual(await h.store.days('2030-01-01', '2030-01-31'), [
        { tenant: 'team-a', day: '2030-01-01', ...zero, llmTokens: 70 },
        {
          tenant: 'team-a',
          day: '2030-01-02',
          ...zero,
          pages: 4,
          browserMs: 1500,
          documents: 1,
          llmTokens: 5,
        },
        { tenant: 'team-b', day: '2030-01-02', ...zero, pages: 2, credits: 2 },
      ]);
      assert.deepEqual(
        (await h.store.days('2030-01-02', '2030-02-01', 'team-a')).map((d) => [d.day, d.pages]),
        [
          ['2030-01-02', 4],
          ['2030-02-01', 9],
        ],
      );
      assert.deepEqual(await h.store.days('2030-01-01', '2030-12-31', 'nobody'), []);
    });

    test('concurrent adds (of two processes where the adapter is shared) all count, and last past a restart', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const other = h.another ? await h.another() : h.store;
      const adds = Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? h.store : other).add([
          { tenant: 'team-a', day: '2030-03-01', counts: { pages: 1, browserMs: 10 } },
          { tenant: 'team-b', day: '2030-03-01', counts: { llmTokens: 3 } },
        ]),
      );
      await Promise.all(adds);
      const again = h.reopen ? await h.reopen() : h.store;
      assert.deepEqual(await again.days('2030-03-01', '2030-03-01'), [
        { tenant: 'team-a', day: '2030-03-01', ...zero, pages: 200, browserMs: 2000 },
        { tenant: 'team-b', day: '2030-03-01', ...zero, llmTokens: 600 },
      ]);
    });

    test('purge drops the days before the one given', async (t) => {
      const h = await make();
      t.after(() => h.close());
      if (!h.purges) return t.skip('this adapter expires old days on its own');
      await h.store.add([
        { tenant: 'team-a', day: '2030-01-01', counts: { pages: 1 } },
        { tenant: 'team-a', day: '2030-01-02', counts: { pages: 2 } },
      ]);
      assert.equal(await h.store.purge('2030-01-02'), 1);
      assert.deepEqual(
        (await h.store.days('2029-01-01', '2031-01-01')).map((d) => d.day),
        ['2030-01-02'],
      );
    });
  });
}
