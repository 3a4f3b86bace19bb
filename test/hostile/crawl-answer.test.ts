import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fastify from 'fastify';
import { CrawlReply } from '../../src/schemas/crawl.js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of this process's heap that are still reachable. */
function liveHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** What Fastify writes for a reply object under the CrawlReply schema (the answer as one serialized value). */
async function serializedByFastify(reply: unknown): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: CrawlReply } } }, async () => reply);
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return res.body;
}

describe("the native crawl's answer", () => {
  test('is the bytes of the whole reply serialized at once, written as the pages come', async (t) => {
    const site = await startCrawlSite({ pages: 40 });
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    for (const [request, check] of [
      [
        { url: `${site.url}/gen/0`, maxDepth: 6, limit: 30, allowBackwardLinks: true, ignoreSitemap: true },
        (data: number) => data === 30,
      ],
      // A page that fails (an image) is in `errors`, the others in `data`.
      [{ url: `${site.url}/broken/` }, (data: number, errors: number) => data === 2 && errors === 1],
    ] as const) {
      const res = await fetch(`${svc.url}/api/v1/crawl`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      const body = await res.text();
      const parsed = JSON.parse(body) as { data: unknown[]; errors: unknown[] };
      assert.ok(check(parsed.data.length, parsed.errors.length), body.slice(0, 300));
      assert.equal(body, await serializedByFastify(parsed));
    }
  });

  test('bad input is still an ordinary 400 before any byte of the answer', async (t) => {
    const svc = await startService(t);
    const res = await svc.post('/api/v1/crawl', { url: 'http://site.test/', limit: 1_000_000 });
    assert.equal(res.status, 400);
    assert.match(String(res.json.error), /limit/);
  });

  test('memory stays bounded whatever the answer weighs: it is never held whole', async (t) => {
    const pages = 2000;
    const site = await startCrawlSite({ pages, padBytes: 30_000 });
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    // What the service retains (live heap after a full collection), weighed every 200 ms of the crawl.
    const baseline = liveHeap();
    let retained = 0;
    const weigh = setInterval(() => (retained = Math.max(retained, liveHeap() - baseline)), 200);
    t.after(() => clearInterval(weigh));
    const res = await fetch(`${svc.url}/api/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.url}/gen/0`,
        maxDepth: 20,
        limit: pages,
        ignoreSitemap: true,
        allowBackwardLinks: true,
        includePaths: ['/gen/*'],
        useParallel: true,
        formats: ['markdown', 'html'],
      }),
    });
    assert.equal(res.status, 200);
    // Read as a client that keeps nothing: count bytes and pages.
    let bytes = 0;
    let documents = 0;
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const chunk = read.value;
      bytes += chunk.byteLength;
      documents += decoder.decode(chunk, { stream: true }).split('"statusCode":').length - 1;
    }
    clearInterval(weigh);
    assert.equal(documents, pages);
    assert.ok(bytes > pages * 30_000, `the answer weighs ${bytes} bytes`);
    // Holding the answer, or the pages read so far, would cost at least their size.
    assert.ok(
      retained < bytes / 4,
      `${(retained / 1e6).toFixed(1)} MB retained at most, for an answer of ${(bytes / 1e6).toFixed(0)} MB`,
    );
  });
});
