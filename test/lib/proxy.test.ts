import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { TargetBlockedError } from '../../src/errors.js';
import { ProxyPool, proxyEndpoint } from '../../src/lib/proxy-pool.js';
import { ProxyRoute, Proxies } from '../../src/lib/proxy-route.js';
import type { GuardOptions } from '../../src/lib/ssrf-guard.js';
import { looksBlocked, proxyPlan } from '../../src/pipeline/proxy-choice.js';
import { site } from '../helpers.js';
import { startTestProxy } from '../fixtures/proxy-server.js';

const three = ['http://u:p@10.1.0.1:3128', 'http://10.1.0.2:3128', 'socks5://10.1.0.3'].map(proxyEndpoint);

/** A guard that resolves the test names as public or private addresses, with private networks refused. */
const strictGuard: GuardOptions = {
  allowPrivateNetworks: false,
  resolver: (host) =>
    Promise.resolve(
      host === 'internal.test'
        ? [{ address: '10.0.0.7', family: 4 }]
        : host === 'mixed.test'
          ? [
              { address: '93.184.216.34', family: 4 },
              { address: '192.168.1.1', family: 4 },
            ]
          : [{ address: '93.184.216.34', family: 4 }],
    ),
};

const request = (session: string) => ({
  method: 'GET' as const,
  headers: {},
  signal: AbortSignal.timeout(10_000),
  session,
});

describe('proxy pool', () => {
  test('a proxy URL: host:port label, credentials kept apart, default ports', () => {
    const [withCredentials, plain, socks] = three;
    assert.equal(withCredentials!.label, '10.1.0.1:3128');
    assert.deepEqual([withCredentials!.username, withCredentials!.password], ['u', 'p']);
    assert.equal(plain!.username, null);
    assert.equal(socks!.label, '10.1.0.3:1080');
    assert.equal(proxyEndpoint('https://proxy.example').port, 443);
    assert.throws(() => proxyEndpoint('ftp://proxy.example'), /not http, https or socks5/);
  });

  test('round-robin per new (session, host), sticky afterwards', async () => {
    const pool = new ProxyPool('basic', three);
    const first = await pool.choose('job-1', 'a.test');
    const second = await pool.choose('job-1', 'b.test');
    const third = await pool.choose('job-2', 'a.test');
    assert.deepEqual(
      [first, second, third].map((p) => p!.label),
      three.map((p) => p.label),
    );
    for (let i = 0; i < 5; i++) {
      assert.equal(await pool.choose('job-1', 'a.test'), first, 'the same job keeps its proxy for a host');
      assert.equal(await pool.choose('job-1', 'b.test'), second);
    }
    assert.equal(
      await pool.choose('job-1', 'a.test', new Set([first!])),
      pool.proxies[1],
      'a request moves on',
    );
    assert.equal(await pool.choose('job-1', 'a.test'), first, 'without moving the pair');
    assert.equal(await pool.choose('job-1', 'a.test', new Set(three)), null);
  });

  test('repeated failures rest a proxy with a doubling backoff; its pairs move; status without credentials', async () => {
    let now = 1_000_000;
    const pool = new ProxyPool('stealth', three.slice(0, 2), { restMs: 1000, now: () => now });
    const [a, b] = pool.proxies;
    assert.equal(await pool.choose('job', 'a.test'), a);
    pool.failed(a!, 'refused the connection');
    pool.failed(a!, 'refused the connection');
    assert.equal(pool.status()[0]!.healthy, true, 'two failures are not enough');
    pool.failed(a!, 'refused the connection');
    assert.deepEqual(pool.status(), [
      {
        proxy: '10.1.0.1:3128',
        tier: 'stealth',
        healthy: false,
        restingUntil: new Date(now + 1000).toISOString(),
      },
      { proxy: '10.1.0.2:3128', tier: 'stealth', healthy: true },
    ]);
    assert.doesNotMatch(JSON.stringify(pool.status()), /u:p|"u"|"p"/);
    assert.equal(await pool.choose('job', 'a.test'), b, 'the pair moved off the resting proxy');
    now += 1001;
    assert.equal(pool.status()[0]!.healthy, true, 'back after its rest');
    pool.failed(a!, 'refused the connection');
    assert.equal(
      pool.status()[0]!.restingUntil,
      new Date(now + 2000).toISOString(),
      'on trial: rests again, twice as long',
    );
    pool.failed(b!, 'refused the connection');
    pool.failed(b!, 'refused the connection');
    pool.failed(b!, 'refused the connection');
    assert.equal(await pool.choose('job', 'c.test'), b, 'every proxy resting: the one back first is tried');
    pool.succeeded(a!);
    assert.equal(pool.status()[0]!.healthy, true);
  });
});

describe('proxy settings', () => {
  test('PROXY_URLS then PROXY_SERVER with its credentials; STEALTH_PROXY_URLS; PROXY_ALL', () => {
    const config = loadConfig({
      PROXY_URLS: 'http://a:b@p1.example:8080,socks5://p2.example:1080',
      PROXY_SERVER: 'p3.example:3128',
      PROXY_USERNAME: 'user name',
      PROXY_PASSWORD: 'p@ss',
      STEALTH_PROXY_URLS: 'https://s.example',
      PROXY_ALL: 'true',
    });
    assert.deepEqual(config.proxies, {
      basic: [
        'http://a:b@p1.example:8080',
        'socks5://p2.example:1080',
        'http://user%20name:p%40ss@p3.example:3128/',
      ],
      stealth: ['https://s.example'],
      all: true,
    });
    assert.deepEqual(loadConfig({}).proxies, { basic: [], stealth: [], all: false });
  });

  test('a bad proxy URL stops the service naming the setting, never quoting credentials', () => {
    assert.throws(
      () => loadConfig({ PROXY_URLS: 'ftp://x.example' }),
      /PROXY_URLS must hold http:\/\/, https:\/\/ or socks5:\/\//,
    );
    assert.throws(() => loadConfig({ STEALTH_PROXY_URLS: 'http://h.example/path' }), /STEALTH_PROXY_URLS/);
    assert.throws(
      () => loadConfig({ PROXY_URLS: 'ftp://alice:s3cret@x.example' }),
      (err: Error) => /PROXY_URLS/.test(err.message) && !/alice|s3cret/.test(err.message),
    );
  });
});

describe('proxy option', () => {
  const tiers = (stealth: boolean) => ({ has: (tier: string) => tier === 'basic' || stealth });

  test('basic by default, auto falls back to stealth only when there are stealth proxies', () => {
    assert.deepEqual(proxyPlan(undefined, null), { tier: 'basic', onBlock: null });
    assert.deepEqual(proxyPlan('basic', tiers(true)), { tier: 'basic', onBlock: null });
    assert.deepEqual(proxyPlan('auto', tiers(true)), { tier: 'basic', onBlock: 'stealth' });
    assert.deepEqual(proxyPlan('auto', tiers(false)), { tier: 'basic', onBlock: null });
    assert.deepEqual(proxyPlan('enhanced', tiers(true)), { tier: 'stealth', onBlock: null });
    assert.throws(() => proxyPlan('stealth', tiers(false)), /STEALTH_PROXY_URLS/);
  });

  test('a block: 401, 403, 429, or a challenge page even with 200', () => {
    const page = (status: number, body = '<p>fine</p>', headers: Record<string, string> = {}) => ({
      url: 'http://a.test/',
      status,
      headers,
      body: Buffer.from(body),
      redirects: [],
    });
    for (const status of [401, 403, 429]) assert.ok(looksBlocked(page(status)), String(status));
    for (const status of [200, 404, 500, 503]) assert.ok(!looksBlocked(page(status)), String(status));
    assert.ok(looksBlocked(page(503, '<html><head><title>Just a moment...</title></head></html>')));
    assert.ok(
      looksBlocked(page(200, '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>')),
    );
    assert.ok(looksBlocked(page(200, '<p>x</p>', { 'cf-mitigated': 'challenge' })));
    assert.ok(looksBlocked(page(200, '<script src="https://ct.captcha-delivery.com/c.js"></script>')));
  });
});

describe('proxy route', () => {
  test('the SSRF guard checks the resolved addresses before a proxy gets the target', async (t) => {
    const proxy = await startTestProxy();
    t.after(() => proxy.kill());
    const s = await site(t);
    const port = new URL(s.url).port;
    const route = new ProxyRoute(new ProxyPool('basic', [proxyEndpoint(proxy.url)]), strictGuard);
    t.after(() => route.close());
    for (const host of ['internal.test', 'mixed.test', '10.0.0.8', '[::1]']) {
      await assert.rejects(
        route.request(new URL(`http://${host}:${port}/`), request('job')),
        (err) => err instanceof TargetBlockedError,
        host,
      );
      await assert.rejects(route.tunnel(host.replace(/^\[|\]$/g, ''), 443, 'job'), TargetBlockedError, host);
    }
    assert.deepEqual(proxy.carried, [], 'nothing private was handed to the proxy');
    // A name that resolves to public addresses only goes on, by name (the proxy resolves it itself).
    const response = await route.request(
      new URL(`http://public.test:${port}/blog/backpressure`),
      request('job'),
    );
    assert.equal(response.statusCode, 200);
    await response.body.dump();
    assert.deepEqual(proxy.carried, [`GET http://public.test:${port}/blog/backpressure`]);
  });

  test('a proxy refusing the credentials (407) is a proxy failure: the next one carries the request', async (t) => {
    const locked = await startTestProxy({ credentials: { user: 'alice', password: 's3cret' } });
    const open = await startTestProxy();
    t.after(() => Promise.all([locked.kill(), open.kill()]));
    const s = await site(t);
    const port = new URL(s.url).port;
    const guard = { ...strictGuard, allowPrivateNetworks: true };
    const wrong = locked.url.replace('s3cret', 'wrong');
    const route = new ProxyRoute(new ProxyPool('basic', [wrong, open.url].map(proxyEndpoint)), guard);
    t.after(() => route.close());
    const response = await route.request(new URL(`http://a.test:${port}/blog/backpressure`), request('job'));
    assert.equal(response.statusCode, 200);
    await response.body.dump();
    assert.equal(locked.refused, 1);
    assert.equal(open.carried.length, 1);
    // Alone, it fails with PROXY_FAILED, naming the proxy by host:port only.
    const alone = new ProxyRoute(new ProxyPool('basic', [proxyEndpoint(wrong)]), guard);
    t.after(() => alone.close());
    await assert.rejects(alone.tunnel('a.test', Number(port), 'job'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'PROXY_FAILED');
      assert.match(err.message, new RegExp(`proxy ${locked.label} answered 407`));
      assert.doesNotMatch(err.message, /alice|wrong|s3cret/);
      return true;
    });
  });

  test('Proxies: a route per configured tier, PROXY_ALL routes only when set', async () => {
    const none = new Proxies({ basic: [], stealth: [], all: true }, strictGuard);
    assert.equal(none.route('basic'), null);
    assert.equal(none.serviceRoute(true), null);
    assert.deepEqual(none.status(), []);
    const some = new Proxies({ basic: ['http://u:p@10.1.0.1:1'], stealth: [], all: false }, strictGuard);
    assert.ok(some.route('basic'));
    assert.equal(some.route('stealth'), null);
    assert.equal(some.has('stealth'), false);
    assert.equal(some.serviceRoute(true), null, 'not without PROXY_ALL');
    assert.deepEqual(some.status(), [{ proxy: '10.1.0.1:1', tier: 'basic', healthy: true }]);
    await Promise.all([none.close(), some.close()]);
  });
});
