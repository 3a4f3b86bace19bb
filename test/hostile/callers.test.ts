import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { site, startService } from '../helpers.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The documented bound for the test process (service in-process). */
const MEMORY_BOUND_MB = 1500;

async function healthy(url: string): Promise<void> {
  assert.equal(await (await fetch(`${url}/health`)).text(), 'ok');
  const rssMb = process.memoryUsage().rss / 1024 / 1024;
  assert.ok(rssMb < MEMORY_BOUND_MB, `RSS ${rssMb.toFixed(0)} MB stays under ${MEMORY_BOUND_MB} MB`);
}

describe('hostile callers', () => {
  test('deeply nested JSON, huge JSON and odd bodies are 4xx, never 500', async (t) => {
    const svc = await startService(t);
    const nested =
      '{"url":"http://x.test/","headers":' + '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000) + '}';
    for (const body of [
      nested,
      '[]',
      'null',
      '"url"',
      '{"url":"http://x.test/"'.repeat(1000),
      '\u0000\u0001',
    ]) {
      const res = await fetch(`${svc.url}/api/v1/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      assert.ok(res.status >= 400 && res.status < 500, `${res.status} for ${body.slice(0, 40)}`);
    }
    const huge = await fetch(`${svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://x.test/', prompt: 'x'.repeat(5 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
    await healthy(svc.url);
  });

  test('schemes, credentials, header injection and Host overrides are refused before any request', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const cases: Record<string, unknown>[] = [
      { url: 'file:///etc/passwd' },
      { url: 'data:text/html,<h1>x</h1>' },
      { url: 'javascript:alert(1)' },
      { url: 'ftp://example.com/x' },
      { url: `http://user:secret@${new URL(s.url).host}/` },
      { url: s.url, headers: { 'X-A': 'b\r\nX-Injected: 1' } },
      { url: s.url, headers: { Host: 'internal.service' } },
      { url: s.url, headers: { 'Transfer-Encoding': 'chunked' } },
    ];
    for (const body of cases) {
      const res = await svc.post('/api/v1/scrape', body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.deepEqual(s.requests, []);
    await healthy(svc.url);
  });

  test('unicode in URLs: IDN hosts and percent-encoding are handled, not crashed on', async (t) => {
    const s = await site(t);
    const svc = await startService(t, {
      resolver: async (host) => {
        if (host === 'xn--bcher-kva.example') return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const port = new URL(s.url).port;
    const idn = await svc.post('/api/v1/scrape', {
      url: `http://bücher.example:${port}/blog/backpressure`,
      formats: [],
    });
    assert.equal(idn.status, 200);
    assert.equal(
      (idn.json.data as { url: string }).url,
      `http://xn--bcher-kva.example:${port}/blog/backpressure`,
    );
    for (const url of [
      `${s.url}/blog/%E2%9C%93?q=%ZZ`,
      `${s.url}/ünï/cødé`,
      'http://[::1',
      'http://exa mple.com/',
    ]) {
      const res = await svc.post('/api/v1/scrape', { url, formats: [] });
      assert.ok(res.status < 500, `${res.status} for ${url}`);
    }
  });

  test('HEAD answers as GET does for the same path, with and without API_KEYS', async (t) => {
    for (const env of [{}, { API_KEYS: 'k1' }] as Record<string, string>[]) {
      const svc = await startService(t, { env });
      for (const path of ['/', '/health', '/app/main.js', '/app/app.css', '/api/v1/status', '/nope']) {
        const get = await fetch(svc.url + path);
        const head = await fetch(svc.url + path, { method: 'HEAD' });
        assert.equal(head.status, get.status, `HEAD ${path} ${JSON.stringify(env)}`);
        assert.equal(await head.text(), '');
      }
    }
  });

  test('on a loopback bind, a Host header naming another host is refused (DNS rebinding)', async (t) => {
    const hostOf = async (url: string, host: string): Promise<{ status: number; code?: string }> => {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${url}/api/v1/status`, { headers: { host } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
      return { status, code: status === 200 ? undefined : (JSON.parse(body) as { code: string }).code };
    };
    const loopback = await startService(t);
    const port = new URL(loopback.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST'])
      assert.equal((await hostOf(loopback.url, host)).status, 200, host);
    for (const host of ['rebound.example', `rebound.example:${port}`, '127.0.0.1.nip.example']) {
      assert.deepEqual(await hostOf(loopback.url, host), { status: 403, code: 'HOST_NOT_ALLOWED' }, host);
    }
    const named = await startService(t, { env: { ALLOWED_HOSTS: 'pagewright.internal' } });
    assert.equal((await hostOf(named.url, 'pagewright.internal:3002')).status, 200);
    assert.equal((await hostOf(named.url, `127.0.0.1:${port}`)).status, 403);
    const open = await startService(t, { env: { ALLOWED_HOSTS: '*' } });
    assert.equal((await hostOf(open.url, 'anything.example')).status, 200);
    const published = await startService(t, { env: { HOST: '0.0.0.0' } });
    assert.equal((await hostOf(published.url, 'anything.example')).status, 200);
  });

  test('admission control: beyond the running and queued crawls, 503 with Retry-After', async (t) => {
    const crawlSite = await startCrawlSite({ delayMs: 300, pages: 100 });
    t.after(() => crawlSite.close());
    const svc = await startService(t, {
      resolver: fixtureResolver,
      env: { MAX_CONCURRENT_CRAWLS: '1', MAX_QUEUED_REQUESTS: '0', CRAWL_MIN_DELAY_MS: '0' },
    });
    const controller = new AbortController();
    const first = fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${crawlSite.url}/gen/0`,
        ignoreSitemap: true,
        allowBackwardLinks: true,
        limit: 50,
      }),
      signal: controller.signal,
    }).catch(() => undefined);
    await sleep(400);
    const second = await fetch(`${svc.url}/api/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: crawlSite.url, limit: 1 }),
    });
    assert.equal(second.status, 503);
    assert.equal(second.headers.get('retry-after'), '5');
    assert.equal(((await second.json()) as { code: string }).code, 'BUSY');
    controller.abort();
    await first;
  });

  test('an SSE client that never reads pauses the crawl instead of buffering the site', async (t) => {
    const crawlSite = await startCrawlSite({ pages: 2000, padBytes: 20_000 });
    t.after(() => crawlSite.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    const port = Number(new URL(svc.url).port);
    const body = JSON.stringify({
      url: `${crawlSite.url}/gen/0`,
      ignoreSitemap: true,
      allowBackwardLinks: true,
      includePaths: ['/gen/*'],
      maxDepth: 20,
      limit: 2000,
      formats: ['markdown', 'html', 'rawHtml'],
    });
    const socket = connect(port, '127.0.0.1');
    socket.pause(); // never read a byte
    socket.write(
      `POST /api/v1/crawl/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await sleep(3000);
    const fetched = crawlSite.hits.length;
    await sleep(1000);
    assert.ok(crawlSite.hits.length - fetched < 50, 'the crawl has (nearly) stopped while nobody reads');
    assert.ok(fetched < 2000, `it did not crawl the whole site into memory (${fetched} requests)`);
    socket.destroy();
    await sleep(300);
    await healthy(svc.url);
  });

  test('clients that disconnect mid-request leave the service healthy on every route', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { SEARXNG_URL: `${s.url}/hang` } });
    const slow = `${s.url}/slow?ms=3000`;
    const bodies: [string, unknown][] = [
      ['/api/v1/scrape', { url: slow }],
      ['/api/v1/map', { url: slow }],
      ['/api/v1/crawl', { url: slow }],
      ['/api/v1/crawl/stream', { url: slow }],
      ['/api/v1/extract', { urls: [slow], selectors: { a: 'h1' } }],
      ['/api/v1/llmstxt', { url: slow }],
      ['/api/v1/search', { query: 'hang' }],
    ];
    for (const [path, body] of bodies) {
      const controller = new AbortController();
      const pending = fetch(svc.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch(() => undefined);
      await sleep(150);
      controller.abort();
      await pending;
    }
    await sleep(300);
    await healthy(svc.url);
  });
});
