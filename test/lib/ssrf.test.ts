import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { site, startService } from '../helpers.js';

/** Declares only the fixture's 127.0.0.1 public, so the real guard runs and every other private address is refused. */
const fixtureIsPublic = (address: string): boolean => address !== '127.0.0.1' && isBlockedAddress(address);

describe('SSRF guard', () => {
  test('address classification', () => {
    for (const blocked of [
      '127.0.0.1',
      '127.5.5.5',
      '10.0.0.1',
      '172.16.3.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.1.2.3',
      '2002:7f00:1::',
      // IPv4-compatible (::/96, as the URL parser writes [::127.0.0.1]), translated, NAT64 (both prefixes),
      // Teredo and ISATAP forms carrying a private IPv4.
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '2400:cb00::5efe:7f00:1',
      '2400:cb00::200:5efe:a00:1',
      'not-an-ip',
    ]) {
      assert.equal(isBlockedAddress(blocked), true, blocked);
    }
    for (const allowed of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '2400:cb00::5efe:808:808',
    ]) {
      assert.equal(isBlockedAddress(allowed), false, allowed);
    }
  });

  test('with ALLOW_PRIVATE_NETWORKS unset: loopback, 10/8, metadata and localhost are refused before any request', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { ALLOW_PRIVATE_NETWORKS: 'false' } });
    const port = new URL(s.url).port;
    for (const url of [
      `${s.url}/blog/backpressure`,
      `http://localhost:${port}/blog/backpressure`,
      `http://[::1]:${port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      `http://[::127.0.0.1]:${port}/`,
      `http://[::ffff:0:7f00:1]:${port}/`,
      `http://[64:ff9b::7f00:1]:${port}/`,
    ]) {
      const { status, json } = await svc.post('/api/v1/scrape', { url, timeout: 3000 });
      assert.equal(status, 403, url);
      assert.equal(json.code, 'TARGET_BLOCKED', url);
      assert.match(json.error as string, /private|reserved|loopback/, url);
    }
    assert.deepEqual(s.requests, [], 'the fixture site saw no request');
  });

  test('IPv4 addresses inside IPv6 literals are refused by both engines before any connection', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { ALLOW_PRIVATE_NETWORKS: 'false' } });
    const port = new URL(s.url).port;
    const engines = existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')
      ? ['http', 'browser']
      : ['http'];
    for (const engine of engines) {
      for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[::ffff:0:7f00:1]', '[64:ff9b:1::7f00:1]']) {
        const url = `http://${host}:${port}/blog/backpressure`;
        const { status, json } = await svc.post('/api/v1/scrape', { url, engine, timeout: 5000 });
        assert.equal(status, 403, `${engine} ${url}: ${JSON.stringify(json)}`);
        assert.equal(json.code, 'TARGET_BLOCKED');
      }
    }
    assert.deepEqual(s.requests, []);
  });

  test('a host name that resolves to 127.0.0.1 is refused at connect time', async (t) => {
    const s = await site(t);
    const svc = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const port = new URL(s.url).port;
    const { status, json } = await svc.post('/api/v1/scrape', {
      url: `http://innocent.example:${port}/blog/backpressure`,
    });
    assert.equal(status, 403);
    assert.match(json.error as string, /innocent\.example.*127\.0\.0\.1/);
    assert.deepEqual(s.requests, []);
  });

  test('every redirect hop is checked: a public page redirecting to a private address is refused', async (t) => {
    const s = await site(t);
    const internal = await site(t, '127.0.0.2');
    const svc = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      isBlockedAddress: fixtureIsPublic,
    });
    const ok = await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure`, formats: [] });
    assert.equal(ok.status, 200, 'the fixture address counts as public here');
    for (const target of [
      `${internal.url}/blog/backpressure`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.1.1/',
    ]) {
      const res = await svc.post('/api/v1/scrape', {
        url: `${s.url}/redirect-to?to=${encodeURIComponent(target)}`,
      });
      assert.equal(res.status, 403, target);
      assert.equal(res.json.code, 'TARGET_BLOCKED');
    }
    const scheme = await svc.post('/api/v1/scrape', {
      url: `${s.url}/redirect-to?to=${encodeURIComponent('file:///etc/passwd')}`,
    });
    assert.equal(scheme.status, 403);
    assert.match(scheme.json.error as string, /scheme 'file:'/);
    assert.deepEqual(internal.requests, [], 'the private server saw no request');
  });
});
