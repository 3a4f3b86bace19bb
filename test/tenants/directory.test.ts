import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

/** Tenants declared once: API_KEYS's `name:key` items and bare keys, operators, and a tenants file. */

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-tenants-'));
const sha = (key: string) => createHash('sha256').update(key).digest();
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('the tenant directory', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('API_KEYS: name:key items, two keys of one name are one tenant, a bare key its own', () => {
    const { tenants } = loadConfig({
      API_KEYS: 'team-a:k1, team-a:k2, team-b:k3, bare-key-4',
      ADMIN_API_KEYS: 'op',
    });
    assert.deepEqual(tenants.callerOf(sha('k1')), { tenant: 'team-a', admin: false });
    assert.deepEqual(tenants.callerOf(sha('k2')), { tenant: 'team-a', admin: false });
    assert.deepEqual(tenants.callerOf(sha('k3')), { tenant: 'team-b', admin: false });
    assert.match(tenants.callerOf(sha('bare-key-4'))!.tenant, /^key-[0-9a-f]{12}$/);
    assert.deepEqual(tenants.callerOf(sha('op')), { tenant: 'admin', admin: true });
    assert.equal(tenants.callerOf(sha('nobody')), null);
    assert.equal(tenants.open, false);
  });

  test('TENANTS_FILE (YAML, or JSON): keys as sha256 digests or plain, limits of their own', () => {
    const yaml = file(
      'tenants.yaml',
      [
        'tenants:',
        '  - name: team-a',
        `    keys: [sha256:${sha('secret-a').toString('hex')}, plain-a]`,
        '    limits: { scrapes: 2, pagesPerDay: 100 }',
        '  - name: team-b',
        '    keys: [secret-b]',
      ].join('\n'),
    );
    const { tenants } = loadConfig({ TENANTS_FILE: yaml, MAX_JOBS_PER_TENANT: '7' });
    assert.equal(tenants.callerOf(sha('secret-a'))?.tenant, 'team-a');
    assert.equal(tenants.callerOf(sha('plain-a'))?.tenant, 'team-a');
    assert.equal(tenants.callerOf(sha('secret-b'))?.tenant, 'team-b');
    assert.equal(tenants.limits('team-a').scrapes, 2);
    assert.equal(tenants.limits('team-a').pagesPerDay, 100);
    assert.equal(tenants.limits('team-a').jobs, 7, 'a limit not given is the setting');
    assert.equal(tenants.limits('team-b').scrapes, 16);
    const json = file('tenants.json', JSON.stringify({ tenants: [{ name: 'j', keys: ['kj'] }] }, null, 2));
    assert.equal(loadConfig({ TENANTS_FILE: json }).tenants.callerOf(sha('kj'))?.tenant, 'j');
  });

  test("a mistake in the file stops the start, naming the file's line", () => {
    const cases: [string, RegExp][] = [
      ['tenants:\n  - name: a\n    keys: [k]\n    limit: { scrapes: 2 }\n', /:4: unknown field `limit`/],
      [
        'tenants:\n  - name: a\n    keys: [k]\n  - name: a\n    keys: [j]\n',
        /:4: tenant `a` is declared twice/,
      ],
      [
        'tenants:\n  - name: a\n    keys: [k]\n  - name: b\n    keys: [k]\n',
        /:5: a key of `b` is also a key of `a`/,
      ],
      [
        'tenants:\n  - name: a\n    keys: [k]\n    limits:\n      jobs: -1\n',
        /:5: limits.jobs must be a whole number, 1 or more/,
      ],
      ['tenants:\n  - name: "bad name"\n    keys: [k]\n', /:2: a tenant `name`/],
      ['tenants:\n  - name: admin\n    keys: [k]\n', /:2: `admin` is the operators' tenant/],
      ['tenants:\n  - name: a\n    keys: []\n', /:3: tenant `a` needs `keys`/],
      ['tenants: [\n', /TENANTS_FILE .*:\d+: /],
    ];
    for (const [text, message] of cases) {
      const p = file('bad.yaml', text);
      assert.throws(
        () => loadConfig({ TENANTS_FILE: p }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError, err.message);
          assert.match(err.message, message);
          assert.doesNotMatch(err.message, /\bk\b.*\bk\b|secret/, 'no key is quoted');
          return true;
        },
      );
    }
    assert.throws(() => loadConfig({ TENANTS_FILE: path.join(dir, 'missing.yaml') }), /cannot be read/);
    assert.throws(() => loadConfig({ API_KEYS: 'a:k1', ADMIN_API_KEYS: 'k1' }), /also a tenant's key/);
  });
});
