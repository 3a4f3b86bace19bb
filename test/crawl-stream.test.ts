import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from './fixtures/crawl-site.js';
import { startService } from './helpers.js';

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
