import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startTestProxy } from '../fixtures/proxy-server.js';
import type { TestProxy, TestProxyOptions } from '../fixtures/proxy-server.js';
import { page } from '../fixtures/site.js';
import { selfSignedCertificate } from '../fixtures/tls.js';
import { docOf, startService } from '../helpers.js';
import type { Service } from '../helpers.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const noBrowser = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (noBrowser) console.warn(`\n!!! BROWSER PROXY TESTS SKIPPED: ${noBrowser}.\n`);

/** The test names resolve to loopback for the service's guard (private networks are allowed in tests). */
const resolver = (host: string) =>
  host.endsWith('.test')
    ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));

async function proxy(t: TestContext, options: TestProxyOptions = {}): Promise<TestProxy> {
  const p = await startTestProxy(options);
  t.after(() => p.kill());
  return p;
}

/**
 * A site answering every path with an article; `/guarded` is a 403 unless the stealth proxy carried it (its
 * label in `x-test-proxy`, as a proxy's Via would say), the way a site blocks a data-centre address.
 */
async function plainSite(t: TestContext, stealthLabel = ''): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/guarded' && req.headers['x-test-proxy'] !== stealthLabel) {
      return void res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>Forbidden</h1>');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('article.html'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://site.test:${(server.address() as AddressInfo).port}`;
}

/** An HTTPS site with a self-signed certificate for secure.test (fetched with skipTlsVerification). */
async function tlsSite(t: TestContext): Promise<string> {
  const server = createTlsServer(selfSignedCertificate('secure.test'), (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('article.html')),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `https://secure.test:${(server.address() as AddressInfo).port}`;
}

const service = (t: TestContext, env: Record<string, string>): Promise<Service> =>
  startService(t, { resolver, env: { CRAWL_MIN_DELAY_MS: '0', ...env } });

async function status(svc: Service): Promise<{ proxies: Record<string, unknown>[] }> {
  return (await (await fetch(`${svc.url}/api/v1/status`)).json()) as { proxies: Record<string, unknown>[] };
}

const ARTICLE = /When a producer writes data faster/;

for (const engine of ['http', 'browser'] as const) {
  describe(`${engine} engine through proxies`, { skip: engine === 'browser' && noBrowser }, () => {
    test('plain http goes as absolute-URI requests to a forward proxy', async (t) => {
      const forward = await proxy(t);
      const target = await plainSite(t);
      const svc = await service(t, { PROXY_URLS: forward.url });
      const { status: code, json } = await svc.post('/api/v1/scrape', { url: `${target}/a`, engine });
      assert.equal(code, 200, JSON.stringify(json));
      assert.match(docOf(json).markdown!, ARTICLE);
      assert.ok(forward.carried.includes(`GET ${target}/a`), forward.carried.join('\n'));
      assert.ok(
        forward.carried.every((line) => line.startsWith(`GET ${target}/`)),
        forward.carried.join('\n'),
      );

      const locked = await proxy(t, { credentials: { user: 'bob', password: 'pw' } });
      const anonymous = await service(t, { PROXY_URLS: locked.url.replace('bob:pw@', '') });
      const refused = await anonymous.post('/api/v1/scrape', { url: `${target}/b`, engine });
      assert.equal(refused.status, 502, JSON.stringify(refused.json));
      assert.equal(refused.json.code, 'PROXY_FAILED');
      assert.deepEqual(locked.carried, []);
    });

    test('https goes through CONNECT to a proxy with Basic credentials; without them, 407 is PROXY_FAILED', async (t) => {
      const locked = await proxy(t, { credentials: { user: 'alice', password: 's3cret' } });
      const target = await tlsSite(t);
      const svc = await service(t, { PROXY_URLS: locked.url });
      const body = { url: `${target}/page`, engine, skipTlsVerification: true };
      const { status: code, json } = await svc.post('/api/v1/scrape', body);
      assert.equal(code, 200, JSON.stringify(json));
      assert.match(docOf(json).markdown!, ARTICLE);
      assert.ok(locked.carried.includes(`CONNECT ${new URL(target).host}`), locked.carried.join('\n'));
      assert.equal(locked.refused, 0);

      const anonymous = await service(t, { PROXY_URLS: locked.url.replace('alice:s3cret@', '') });
      const refused = await anonymous.post('/api/v1/scrape', body);
      assert.equal(refused.status, 502, JSON.stringify(refused.json));
      assert.equal(refused.json.code, 'PROXY_FAILED');
      assert.match(refused.json.error as string, new RegExp(`${locked.label} answered 407`));
      assert.ok(locked.refused > 0);
      assert.doesNotMatch(JSON.stringify(refused.json), /alice|s3cret/);
    });
  });
}

describe('proxy option', () => {
  test('stealth without STEALTH_PROXY_URLS is a 400 naming it, on every surface, before anything is fetched', async (t) => {
    const basic = await proxy(t);
    const target = await plainSite(t);
    const svc = await service(t, { PROXY_URLS: basic.url });
    const url = `${target}/a`;
    const calls: [string, Record<string, unknown>][] = [
      ['/api/v1/scrape', { url, proxy: 'stealth' }],
      ['/api/v1/crawl', { url, proxy: 'enhanced' }],
      ['/v2/scrape', { url, proxy: 'stealth' }],
      ['/v1/scrape', { url, proxy: 'enhanced' }],
      ['/v2/crawl', { url, scrapeOptions: { proxy: 'stealth' } }],
      ['/v1/crawl', { url, scrapeOptions: { proxy: 'stealth' } }],
      ['/v2/batch/scrape', { urls: [url], proxy: 'stealth' }],
    ];
    for (const [path, body] of calls) {
      const { status: code, json } = await svc.post(path, body);
      assert.equal(code, 400, `${path}: ${JSON.stringify(json)}`);
      assert.match(json.error as string, /STEALTH_PROXY_URLS/, path);
    }
    assert.equal((await svc.post('/v2/scrape', { url, proxy: 'residential' })).status, 400);
    assert.deepEqual(basic.carried, [], 'nothing was fetched');
  });

  test('stealth goes through STEALTH_PROXY_URLS; auto tries basic, then stealth when blocked', async (t) => {
    const basic = await proxy(t);
    const stealth = await proxy(t);
    const target = await plainSite(t, stealth.label);
    const svc = await service(t, { PROXY_URLS: basic.url, STEALTH_PROXY_URLS: stealth.url });
    const scrape = async (path: string, body: Record<string, unknown>) => {
      const { status: code, json } = await svc.post(path, body);
      assert.equal(code, 200, JSON.stringify(json));
      return json.data as { markdown: string; metadata: Record<string, unknown> };
    };
    await scrape('/api/v1/scrape', { url: `${target}/one`, proxy: 'stealth', engine: 'http' });
    assert.deepEqual([basic.carried, stealth.carried], [[], [`GET ${target}/one`]]);

    const blocked = await scrape('/v2/scrape', { url: `${target}/guarded`, proxy: 'basic' });
    assert.equal(blocked.metadata.statusCode, 403, 'basic stays basic');
    const auto = await scrape('/v2/scrape', { url: `${target}/guarded`, proxy: 'auto' });
    assert.equal(auto.metadata.statusCode, 200);
    assert.match(auto.markdown, ARTICLE);
    assert.deepEqual(
      [basic.carried.filter((l) => l.endsWith('/guarded')).length, stealth.carried.at(-1)],
      [2, `GET ${target}/guarded`],
    );
    const unblocked = stealth.carried.length;
    await scrape('/v1/scrape', { url: `${target}/free`, proxy: 'auto' });
    assert.equal(stealth.carried.length, unblocked, 'auto goes on to stealth only on a block');
  });
});

describe('rotation and health during jobs', () => {
  test('two proxies rotate per host and each host keeps its proxy for the job', async (t) => {
    const one = await proxy(t);
    const two = await proxy(t);
    const target = await plainSite(t);
    const port = new URL(target).port;
    const svc = await service(t, { PROXY_URLS: `${one.url},${two.url}` });
    // Host by host: without stickiness, round-robin alone would split each host over both proxies.
    const urls = ['a', 'b'].flatMap((host) => [1, 2, 3, 4].map((n) => `http://${host}.test:${port}/p${n}`));
    const started = await svc.post('/v2/batch/scrape', { urls });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    await untilDone(`${svc.url}/v2/batch/scrape/${started.json.id as string}`, urls.length);
    const hostsOf = (p: TestProxy) => [
      ...new Set(p.carried.map((line) => new URL(line.split(' ')[1]!).hostname)),
    ];
    assert.equal(one.carried.length + two.carried.length, urls.length, 'each page once, all through proxies');
    assert.deepEqual([hostsOf(one).length, hostsOf(two).length], [1, 1], `${one.carried}\n${two.carried}`);
    assert.notEqual(hostsOf(one)[0], hostsOf(two)[0], 'the two hosts went through different proxies');
  });

  test('a proxy that dies mid-crawl: the crawl completes through the other, and status shows it resting', async (t) => {
    const site = await startCrawlSite({ pages: 31 });
    t.after(() => site.close());
    let pages = 0;
    let victim: TestProxy | null = null;
    const all: TestProxy[] = [];
    // The proxy carrying the crawl's fifth page (the one the job's host sticks to) dies as it gets it.
    const dies = (p: TestProxy, request: string): boolean => {
      if (!/robots\.txt|sitemap/.test(request) && ++pages === 5) victim = p;
      return p === victim;
    };
    const credentials = { user: 'crawler', password: 'hunter2' };
    all.push(await proxy(t, { dies, credentials }), await proxy(t, { dies, credentials }));
    const svc = await service(t, {
      PROXY_URLS: all.map((p) => p.url).join(','),
      CRAWL_CONCURRENCY: '1',
      CRAWL_HOST_CONCURRENCY: '1',
    });
    const { status: code, json } = await svc.post('/api/v1/crawl', { url: site.url, formats: [], limit: 20 });
    assert.equal(code, 200, JSON.stringify(json));
    assert.deepEqual(json.errors, []);
    assert.equal((json.data as unknown[]).length, 20);
    assert.ok(victim, 'a proxy died');
    const survivor = all.find((p) => p !== victim)!;
    assert.ok(survivor.carried.length > 6);
    const listed = (await status(svc)).proxies;
    const dead = listed.find((p) => p.proxy === victim!.label)!;
    assert.equal(dead.healthy, false, JSON.stringify(listed));
    assert.ok(Date.parse(dead.restingUntil as string) > Date.now());
    assert.deepEqual(
      listed.find((p) => p.proxy === survivor.label),
      {
        proxy: survivor.label,
        tier: 'basic',
        healthy: true,
      },
    );
    assert.doesNotMatch(JSON.stringify(listed), /crawler|hunter2/, 'never the credentials');
  });
});

async function untilDone(url: string, expected: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const body = (await (await fetch(url)).json()) as { status: string; completed: number };
    if (body.status === 'completed') {
      assert.equal(body.completed, expected, JSON.stringify(body));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${url} did not complete`);
}
