import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeStates } from '../../src/engines/cookie-jar.js';
import type { BrowserState, StoredCookie } from '../../src/engines/cookie-jar.js';
import { withProfile } from '../../src/jobs/profile-session.js';
import { MemoryProfileStore, Profiles } from '../../src/jobs/stores/browser-state/profile-store.js';

const cookie = (name: string, value: string): StoredCookie => ({
  name,
  value,
  domain: 'site.test',
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax',
});
const names = (s: BrowserState | null) => (s?.cookies ?? []).map((c) => `${c.name}=${c.value}`).sort();

test('two shares of a job save one profile: neither drops the cookies the other set, changed or removed', async () => {
  const profiles = new Profiles(new MemoryProfileStore(), { ttlMs: 3_600_000, secret: null });
  await profiles.save('t', 'login', { cookies: [cookie('session', 's0'), cookie('old', '1')], origins: [] });
  const option = { name: 'login', saveChanges: true };
  let release: () => void = () => undefined;
  const bothStarted = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  // Each share starts from the same stored profile, changes its own cookies, and saves at its own end.
  const share = (change: (jar: NonNullable<Parameters<Parameters<typeof withProfile>[3]>[0]>) => void) =>
    withProfile(profiles, option, 't', async (jar) => {
      if (++started === 2) release();
      await bothStarted;
      change(jar!);
    });
  await Promise.all([
    share((jar) => jar.keep(new URL('http://site.test/'), ['a=from-share-1; Path=/', 'session=s1; Path=/'])),
    share((jar) =>
      jar.keep(new URL('http://site.test/'), ['b=from-share-2; Path=/', 'old=; Max-Age=0; Path=/']),
    ),
  ]);
  assert.deepEqual(names(await profiles.state('t', 'login')), [
    'a=from-share-1',
    'b=from-share-2',
    'session=s1',
  ]);
});

test('mergeStates: ours over theirs only where ours changed since the base; localStorage alike', () => {
  const base: BrowserState = {
    cookies: [cookie('x', '1'), cookie('y', '1')],
    origins: [{ origin: 'https://site.test', localStorage: [{ name: 'k', value: '1' }] }],
  };
  const ours: BrowserState = {
    cookies: [cookie('x', '1'), cookie('z', 'ours')],
    origins: [
      {
        origin: 'https://site.test',
        localStorage: [
          { name: 'k', value: '1' },
          { name: 'm', value: 'ours' },
        ],
      },
    ],
  };
  const theirs: BrowserState = {
    cookies: [cookie('x', 'theirs'), cookie('y', '1'), cookie('w', 'theirs')],
    origins: [{ origin: 'https://site.test', localStorage: [{ name: 'k', value: 'theirs' }] }],
  };
  const merged = mergeStates(base, ours, theirs);
  assert.deepEqual(names(merged), ['w=theirs', 'x=theirs', 'z=ours']);
  assert.deepEqual(merged.origins, [
    {
      origin: 'https://site.test',
      localStorage: [
        { name: 'k', value: 'theirs' },
        { name: 'm', value: 'ours' },
      ],
    },
  ]);
});
