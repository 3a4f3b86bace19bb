import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

interface Event {
  type: string;
  [key: string]: unknown;
}

function parseEvents(text: string): Event[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Event);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('POST /api/v1/crawl/stream', () => {
  test('Server-Sent Events: status before each document, errors per URL, complete with totals last', async (t) => {
    const site = await startCrawlSite();
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/docs/`, ignoreSitemap: true, formats: ['markdown'] }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = parseEvents(await res.text());
    const types = events.map((e) => e.type);
    assert.deepEqual(types, ['status', 'document', 'status', 'document', 'status', 'document', 'complete']);
    const status = events[0]!;
    assert.deepEqual(Object.keys(status).sort(), ['crawled', 'current_url', 'queued', 'type']);
    assert.equal(status.current_url, `${site.url}/docs/`);
    assert.equal(status.crawled, 0);
    const doc = events[1]!.data as { url: string; markdown: string; metadata: { statusCode: number } };
    assert.equal(doc.url, `${site.url}/docs/`);
    assert.match(doc.markdown, /^# Docs/);
    const complete = events.at(-1)!;
    assert.equal(complete.crawled, 3);
    assert.equal(complete.errors, 0);
    assert.ok((complete.discovered as number) >= 3);
    assert.equal(typeof complete.duration_ms, 'number');
    assert.equal(complete.stopped, null);
  });

  test('URLs left out are counted by reason in complete and logged one debug line each', async (t) => {
    const site = await startCrawlSite();
    t.after(() => site.close());
    const logLines: string[] = [];
    const svc = await startService(t, {
      resolver: fixtureResolver,
      env: { CRAWL_MIN_DELAY_MS: '0' },
      logLines,
    });
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // From the home page, /gen/0 (depth 1) links to /private/0 (robots), an external host (scope), and
      // /gen/1 whose own children lie at depth 3 (too deep).
      body: JSON.stringify({ url: `${site.url}/`, ignoreSitemap: true, maxDepth: 2, limit: 100 }),
    });
    const complete = parseEvents(await res.text()).at(-1)!;
    assert.equal(complete.type, 'complete');
    const skipped = complete.skipped as { robots: number; outOfScope: number; tooDeep: number };
    assert.ok(skipped.robots >= 1, JSON.stringify(skipped));
    assert.ok(skipped.outOfScope >= 1, JSON.stringify(skipped));
    assert.ok(skipped.tooDeep >= 1, JSON.stringify(skipped));
    const drops = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'url dropped');
    assert.equal(drops.length, skipped.robots + skipped.outOfScope + skipped.tooDeep);
    assert.ok(
      drops.some((d) => d.reason === 'robots.txt disallows it' && /\/private\//.test(d.url as string)),
    );
  });

  test('an internal failure mid-stream reaches the client as "Internal error", never its message', async (t) => {
    const { default: Fastify } = await import('fastify');
    const { writeEventStream } = await import('../../src/http/routes/event-stream.js');
    const app = Fastify({ logger: false });
    app.get('/stream', async (_req, reply) => {
      async function* events(): AsyncGenerator<unknown> {
        yield { type: 'status' };
        throw new Error('secret internals at /srv/app/db.ts:42');
      }
      await writeEventStream(reply, events(), new AbortController().signal);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    t.after(() => app.close());
    const { port } = app.server.address() as { port: number };
    const events = parseEvents(await (await fetch(`http://127.0.0.1:${port}/stream`)).text());
    assert.deepEqual(events.at(-1), { type: 'error', url: '', code: 'INTERNAL', error: 'Internal error' });
  });

  test('per-URL failures are error events and the stream goes on', async (t) => {
    const site = await startCrawlSite();
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/broken/`, ignoreSitemap: true }),
    });
    const events = parseEvents(await res.text());
    const errors = events.filter((e) => e.type === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 'UNSUPPORTED_CONTENT');
    assert.equal(errors[0]!.url, `${site.url}/broken/logo.png`);
    assert.ok(
      events.some((e) => e.type === 'document' && (e.data as { url: string }).url.endsWith('/broken/ok')),
    );
    assert.equal(events.at(-1)!.type, 'complete');
    assert.equal(events.at(-1)!.errors, errors.length);
  });

  test('a client that disconnects stops the crawl within one page fetch', async (t) => {
    const site = await startCrawlSite({ pages: 500 });
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '100' } });
    const controller = new AbortController();
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.url}/gen/0`,
        ignoreSitemap: true,
        allowBackwardLinks: true,
        includePaths: ['/gen/*'],
        maxDepth: 20,
        limit: 500,
      }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"type":"document"')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await sleep(400);
    const afterDisconnect = site.hits.length;
    await sleep(1000);
    assert.equal(
      site.hits.length,
      afterDisconnect,
      'no request reached the site after the stream was closed',
    );
    assert.ok(afterDisconnect < 20, `the crawl had only started (${afterDisconnect} requests)`);
  });
});
