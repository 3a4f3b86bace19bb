import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { docOf, site, startService } from '../helpers.js';
import type { Service } from '../helpers.js';

/** The documented bound for the test process (service in-process) while hostile targets are served. */
const MEMORY_BOUND_MB = 1500;

async function healthy(svc: Service): Promise<void> {
  const res = await fetch(`${svc.url}/health`);
  assert.equal(await res.text(), 'ok');
  const rssMb = process.memoryUsage().rss / 1024 / 1024;
  assert.ok(rssMb < MEMORY_BOUND_MB, `RSS ${rssMb.toFixed(0)} MB stays under ${MEMORY_BOUND_MB} MB`);
}

async function scrape(
  t: TestContext,
  path: string,
  body: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  // The SSRF guard is on: the fixture's 127.0.0.1 counts as public, and a second server on 127.0.0.2
  // stands for the private network, which must never see a request.
  const s = await site(t);
  const internal = await site(t, '127.0.0.2');
  t.after(() => assert.deepEqual(internal.requests, [], 'no private address was contacted'));
  const svc = await startService(t, {
    env: { ALLOW_PRIVATE_NETWORKS: 'false', ...env },
    isBlockedAddress: (a) => a !== '127.0.0.1' && isBlockedAddress(a),
  });
  const started = Date.now();
  const res = await svc.post('/api/v1/scrape', { url: s.url + path, engine: 'http', ...body });
  return { ...res, ms: Date.now() - started, svc };
}

describe('hostile targets: a clear error or a bounded result, and the service stays up', () => {
  test('an endless redirect loop stops at the redirect cap', async (t) => {
    const { status, json, svc } = await scrape(t, '/loop/a');
    assert.equal(status, 502);
    assert.equal(json.code, 'TOO_MANY_REDIRECTS');
    await healthy(svc);
  });

  test('a redirect to a private address is refused', async (t) => {
    const { status, json, svc } = await scrape(
      t,
      `/redirect-to?to=${encodeURIComponent('http://127.0.0.2:9/blog/backpressure')}`,
    );
    assert.equal(status, 403);
    assert.equal(json.code, 'TARGET_BLOCKED');
    await healthy(svc);
  });

  test('a host name that resolves to loopback is refused', async (t) => {
    const s = await site(t);
    const svc = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const res = await svc.post('/api/v1/scrape', { url: `http://rebind.example:${new URL(s.url).port}/` });
    assert.equal(res.status, 403);
    assert.deepEqual(s.requests, []);
    await healthy(svc);
  });

  test('a gzip bomb stops at the decoded-size cap', async (t) => {
    const { status, json, svc } = await scrape(
      t,
      '/gzip-bomb',
      {},
      { MAX_DECOMPRESSED_BYTES: String(8 * 1024 * 1024) },
    );
    assert.equal(status, 502);
    assert.equal(json.code, 'TARGET_TOO_LARGE');
    await healthy(svc);
  });

  test('slowloris (1 byte per second) ends at the timeout', async (t) => {
    const { status, json, ms, svc } = await scrape(t, '/hostile/slowloris', { timeout: 1500 });
    assert.equal(status, 408);
    assert.equal(json.code, 'TIMEOUT');
    assert.ok(ms < 5000);
    await healthy(svc);
  });

  test('a never-ending body stops at the size cap', async (t) => {
    const { status, json, svc } = await scrape(
      t,
      '/hostile/endless',
      { timeout: 20000 },
      { MAX_RESPONSE_BYTES: String(2 * 1024 * 1024) },
    );
    assert.equal(status, 502);
    assert.equal(json.code, 'TARGET_TOO_LARGE');
    await healthy(svc);
  });

  test('a 2 GB Content-Length lie does not reserve 2 GB and ends cleanly', async (t) => {
    const { status, json, svc } = await scrape(t, '/hostile/length-lie', { timeout: 5000 });
    assert.ok([200, 502].includes(status), `${status} ${JSON.stringify(json).slice(0, 200)}`);
    await healthy(svc);
  });

  test('100,000 levels of nesting are refused by MAX_HTML_DEPTH, not a crash', async (t) => {
    const { status, json, svc } = await scrape(t, '/hostile/deep', { timeout: 60000 });
    assert.equal(status, 422);
    assert.match(json.error as string, /deeper than 512 levels \(MAX_HTML_DEPTH\)/);
    await healthy(svc);
  });

  test('a 10 MB single-line script never reaches the output', async (t) => {
    const { status, json, svc } = await scrape(
      t,
      '/hostile/huge-script',
      { formats: ['markdown', 'html'], timeout: 60000 },
      {
        MAX_RESPONSE_BYTES: String(20 * 1024 * 1024),
      },
    );
    assert.equal(status, 200);
    assert.equal(docOf(json).markdown, 'Visible words here.');
    assert.ok(!docOf(json).html!.includes('xxxxxxxx'));
    assert.ok((docOf(json).metadata.contentScriptRatio as number) < 0.01);
    await healthy(svc);
  });

  test('invalid UTF-8 decodes with replacement characters', async (t) => {
    const { status, json, svc } = await scrape(t, '/hostile/invalid-utf8');
    assert.equal(status, 200);
    assert.match(docOf(json).markdown!, /Bad bytes: .*\uFFFD.* end\./);
    await healthy(svc);
  });

  test('binary served as text/html is refused', async (t) => {
    const { status, json, svc } = await scrape(t, '/hostile/binary-as-html');
    assert.equal(status, 422);
    assert.equal(json.code, 'UNSUPPORTED_CONTENT');
    await healthy(svc);
  });

  test('a huge, malformed robots.txt and a sitemap index that nests forever stay bounded', async (t) => {
    const crawlSite = await startCrawlSite({ hostile: true });
    t.after(() => crawlSite.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    const map = await svc.post('/api/v1/map', { url: crawlSite.url, timeout: 20000 });
    assert.equal(map.status, 200);
    const bombs = crawlSite.paths().filter((p) => p.startsWith('/bomb/') || p === '/sitemap.xml');
    assert.ok(bombs.length <= 50, `at most 50 sitemap files fetched (${bombs.length})`);
    const crawl = await svc.post('/api/v1/crawl', { url: crawlSite.url, limit: 5 });
    assert.equal(crawl.status, 200);
    assert.ok((crawl.json.data as unknown[]).length <= 5);
    await healthy(svc);
  });
});
