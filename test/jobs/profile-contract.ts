import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BrowserState } from '../../src/engines/cookie-jar.js';
import { MAX_PROFILE_BYTES, Profiles } from '../../src/jobs/stores/browser-state/profile-store.js';
import type { ProfileStore } from '../../src/jobs/stores/browser-state/profile-store.js';

export interface ProfileStoreHarness {
  store: ProfileStore;
  /** The process restarts: a durable adapter finds what it stored. */
  reopen?: () => Promise<ProfileStore>;
  close(): Promise<void>;
}

export const SECRET_VALUE = 'sekret-session-7f3a9c';

export const acmeState = (): BrowserState => ({
  cookies: [
    {
      name: 'sid',
      value: SECRET_VALUE,
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax',
    },
    {
      name: 'theme',
      value: 'dark',
      domain: '.example.test',
      path: '/',
      expires: Math.floor(Date.now() / 1000) + 3600,
      httpOnly: false,
      secure: true,
      sameSite: 'Strict',
    },
  ],
  origins: [{ origin: 'http://127.0.0.1:1', localStorage: [{ name: 'token', value: 'ls-value' }] }],
});

const DAY = 86_400_000;
/** Two tenants, and the owner of profiles stored before tenants. */
const A = 'team-a';
const B = 'team-b';
const DEFAULT = 'default';

/** The profile store's contract (profile-store.ts) through `Profiles`, run against every adapter. */
export function profileStoreContract(name: string, make: () => Promise<ProfileStoreHarness>): void {
  describe(`ProfileStore contract: ${name}`, () => {
    test("update is a compare-and-set: concurrent updates of one profile each apply to the other's result", async (t) => {
      const h = await make();
      t.after(() => h.close());
      const profiles = new Profiles(h.store, { ttlMs: 30 * DAY, secret: null });
      const cookie = (n: number) => ({ ...acmeState().cookies[0]!, name: `c${n}`, value: String(n) });
      // None stored yet: the first update creates it, the others add to it.
      await Promise.all(
        [1, 2, 3, 4].map((n) =>
          profiles.update(A, 'shared', (stored) => ({
            cookies: [...(stored?.cookies ?? []), cookie(n)],
            origins: [],
          })),
        ),
      );
      const names = (await profiles.state(A, 'shared'))!.cookies.map((c) => c.name).sort();
      assert.deepEqual(names, ['c1', 'c2', 'c3', 'c4']);
      assert.deepEqual(
        (await profiles.list(A)).map((p) => p.name),
        ['shared'],
      );
      const stored = (await h.store.get(A, 'shared'))!;
      assert.equal(await h.store.replaceIf({ ...stored, updatedAt: stored.updatedAt - 1 }, stored), false);
      assert.equal(await h.store.replaceIf(null, stored), false, 'null expects no record');
    });

    for (const secret of [null, 'a profile secret']) {
      test(`save, get, list, delete (${secret ? 'sealed' : 'plain'})`, async (t) => {
        const h = await make();
        t.after(() => h.close());
        const profiles = new Profiles(h.store, { ttlMs: 30 * DAY, secret });
        assert.equal(await profiles.state(A, 'acme'), null);
        const now = Date.now();
        const created = now - 60_000;
        const first = await profiles.save(A, 'acme', acmeState(), created);
        assert.equal(first.cookies, 2);
        assert.deepEqual(first.domains, ['127.0.0.1', 'example.test']);
        assert.equal(first.tenant, A);
        const saved = acmeState(); // one value: its expiry moves with the clock's second
        await profiles.save(A, 'acme', saved, now);
        await profiles.save(A, 'beta', { cookies: [], origins: [] }, now);
        const again = new Profiles(h.reopen ? await h.reopen() : h.store, { ttlMs: 30 * DAY, secret });
        assert.deepEqual(await again.state(A, 'acme'), saved);
        const summary = await again.summary(A, 'acme');
        assert.equal(summary?.createdAt, new Date(created).toISOString(), 'creation kept across saves');
        assert.equal(summary?.updatedAt, new Date(now).toISOString());
        assert.equal(summary?.expiresAt, new Date(now + 30 * DAY).toISOString());
        const list = await again.list(A);
        assert.deepEqual(
          list.map((p) => [p.name, p.cookies]),
          [
            ['acme', 2],
            ['beta', 0],
          ],
        );
        assert.ok(!JSON.stringify(list).includes(SECRET_VALUE), 'a list never shows a value');
        assert.equal(await again.delete(A, 'acme'), true);
        assert.equal(await again.delete(A, 'acme'), false);
        assert.equal(await again.state(A, 'acme'), null);
        assert.deepEqual(
          (await again.list(A)).map((p) => p.name),
          ['beta'],
        );
      });
    }

    test('two tenants each have their own profile of one name: read, listed and deleted apart', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const profiles = new Profiles(h.store, { ttlMs: DAY, secret: 'a profile secret' });
      await profiles.save(A, 'shop', acmeState());
      await profiles.save(B, 'shop', { cookies: [], origins: [] });
      await profiles.save(DEFAULT, 'old', { cookies: [], origins: [] });
      await profiles.save(B, 'b-only', { cookies: [], origins: [] });
      const store = h.reopen ? await h.reopen() : h.store;
      const again = new Profiles(store, { ttlMs: DAY, secret: 'a profile secret' });
      assert.equal((await again.state(A, 'shop'))?.cookies.length, 2);
      assert.equal((await again.state(B, 'shop'))?.cookies.length, 0, "b's own, never a's");
      assert.equal(await again.state(A, 'b-only'), null, "another tenant's name is absent");
      assert.equal(await again.summary(A, 'b-only'), null);
      assert.deepEqual(
        (await again.list(B)).map((p) => [p.name, p.tenant]),
        [
          ['b-only', B],
          ['shop', B],
        ],
      );
      assert.deepEqual(
        (await again.list(null)).map((p) => [p.name, p.tenant]),
        [
          ['b-only', B],
          ['old', DEFAULT],
          ['shop', A],
          ['shop', B],
        ],
        "every tenant's, by name then tenant",
      );
      assert.deepEqual(await again.list('nobody'), []);
      assert.equal(await again.delete(A, 'b-only'), false, "a cannot delete b's");
      assert.equal(await again.delete(B, 'shop'), true);
      assert.equal((await again.state(A, 'shop'))?.cookies.length, 2, "a's is untouched");
      // A sealed state copied under another tenant does not open there.
      const sealed = await store.get(A, 'shop');
      await store.put({ ...sealed!, owner: B });
      await assert.rejects(
        again.state(B, 'shop'),
        (err: { code?: string }) => err.code === 'CONFIGURATION_ERROR',
      );
    });

    test('a state over 1 MiB is refused (422) and the profile keeps what it had', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const profiles = new Profiles(h.store, { ttlMs: DAY, secret: null });
      await profiles.save(A, 'acme', acmeState());
      const huge = acmeState();
      huge.origins[0]!.localStorage.push({ name: 'blob', value: 'x'.repeat(MAX_PROFILE_BYTES) });
      await assert.rejects(profiles.save(A, 'acme', huge), (err: Error & { status?: number }) => {
        assert.equal(err.status, 422);
        assert.match(err.message, /acme/);
        return true;
      });
      assert.equal((await profiles.state(A, 'acme'))?.origins[0]?.localStorage.length, 1);
    });

    test('a profile expires PROFILE_TTL_DAYS after its last save, and is purged', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const profiles = new Profiles(h.store, { ttlMs: DAY, secret: null });
      const now = Date.now();
      await profiles.save(A, 'old', acmeState(), now);
      const later = now + DAY + 1;
      assert.equal(await profiles.state(A, 'old', later), null);
      assert.equal(await profiles.summary(A, 'old', later), null);
      assert.deepEqual(await profiles.list(A, later), []);
      assert.deepEqual(await profiles.list(null, later), []);
      assert.ok((await profiles.state(A, 'old', now + 1)) !== null, 'alive before its expiry');
      await profiles.purge(later);
      // Redis expires keys on its own clock instead of purging by time.
      if (name !== 'redis') assert.equal(await h.store.get(A, 'old'), null);
    });

    test('a sealed profile does not open without its secret, nor with another', async (t) => {
      const h = await make();
      t.after(() => h.close());
      await new Profiles(h.store, { ttlMs: DAY, secret: 'one' }).save(A, 'acme', acmeState());
      const raw = await h.store.get(A, 'acme');
      assert.ok(raw && !raw.body.includes(SECRET_VALUE) && !raw.body.includes('ls-value'), 'sealed at rest');
      for (const secret of [null, 'two']) {
        await assert.rejects(
          new Profiles(h.store, { ttlMs: DAY, secret }).state(A, 'acme'),
          (err: { code?: string; message: string }) =>
            err.code === 'CONFIGURATION_ERROR' && err.message.includes('PROFILE_SECRET'),
        );
      }
      // Metadata stays readable for the list.
      assert.equal((await new Profiles(h.store, { ttlMs: DAY, secret: null }).list(A))[0]?.cookies, 2);
    });
  });
}
