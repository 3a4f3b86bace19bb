import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestContext } from 'node:test';
import { startFlakySite } from '../fixtures/sites/flaky-site.js';
import type { FlakySiteOptions } from '../fixtures/sites/flaky-site.js';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';

type Json = Record<string, unknown>;
interface Page {
  url: string;
  metadata: { statusCode: number; attempts?: number };
}

async function setup(t: TestContext, site: FlakySiteOptions, env: Record<string, string> = {}) {
  const s = await startFlakySite(site);
  t.after(() => s.close());
  const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  return { site: s, svc };
}

const get = async (url: string): Promise<Json> => (await (await fetch(url)).json()) as Json;

/** Polls a Firecrawl v2 crawl until it ends; every status seen goes to `onPoll`. */
async function waitForCrawl(
  svc: Service,
  id: string,
  onPoll: (status: Json) => void = () => {},
): Promise<Json> {
  for (;;) {
    const status = await get(`${svc.url}/v2/crawl/${id}`);
    onPoll(status);
    if (status.status !== 'scraping') return status;
    await sleep(100);
  }
}

describe('retries of transient failures', () => {
  test('a scrape retries a reset connection and a 503 within its timeout; metadata.attempts counts the fetches', async (t) => {
    const reset = await setup(t, { mode: 'reset' });
    const { status, json } = await reset.svc.post('/api/v1/scrape', { url: `${reset.site.url}/p/1` });
    assert.equal(status, 200, JSON.stringify(json));
    const data = json.data as Page;
    assert.equal(data.metadata.statusCode, 200);
    assert.equal(data.metadata.attempts, 2);
    assert.equal(reset.site.count('/p/1'), 2);

    const busy = await setup(t, { mode: '503', failures: 2 });
    const v2 = await busy.svc.post('/v2/scrape', { url: `${busy.site.url}/p/0` });
    assert.equal(v2.status, 200, JSON.stringify(v2.json));
    const doc = v2.json.data as Page;
    assert.equal(doc.metadata.statusCode, 200);
    assert.equal(doc.metadata.attempts, 3, 'v2 documents carry attempts too');
  });

  test('maxRetries 0 serves the transient answer as it is; permanent answers (404, 400) are never retried', async (t) => {
    const { site, svc } = await setup(t, { mode: '503', failures: 5 });
    const once = await svc.post('/api/v1/scrape', { url: `${site.url}/p/0`, maxRetries: 0 });
    assert.equal(once.status, 200);
    assert.equal((once.json.data as Page).metadata.statusCode, 503);
    assert.equal((once.json.data as Page).metadata.attempts, undefined, 'one fetch: no attempts field');
    assert.equal(site.count('/p/0'), 1);
    for (const path of ['/gone', '/bad']) {
      const res = await svc.post('/api/v1/scrape', { url: `${site.url}${path}` });
      assert.equal((res.json.data as Page).metadata.attempts, undefined, path);
      assert.equal(site.count(path), 1, `${path} fetched once`);
    }
    const bad = await svc.post('/api/v1/scrape', { url: `${site.url}/p/0`, maxRetries: 11 });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /maxRetries/);
  });

  // A refused connection is one too, but a crawl meets it at robots.txt first, which then disallows the site
  // (RFC 9309; test/crawl/robots-rfc9309.test.ts): here robots.txt answers and every page's connection is cut.
  test('a connection cut before the answer is retried, then reported with its attempts', async (t) => {
    const svc = await startService(t, { env: { MAX_RETRIES: '1' } });
    const site = await startFlakySite({ mode: 'reset', failures: 99 });
    t.after(() => site.close());
    const url = `${site.url}/p/0`;
    const { status, json } = await svc.post('/api/v1/crawl', { url, formats: [] });
    assert.equal(status, 200, JSON.stringify(json));
    const errors = json.errors as { code: string; attempts: number }[];
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 'TARGET_UNREACHABLE');
    assert.equal(errors[0]!.attempts, 2);
  });

  test('a native crawl of a site that answers 429 with Retry-After: 2 to each first request gets every page, each retried after the hold', async (t) => {
    const { site, svc } = await setup(t, { mode: '429', pages: 4, retryAfter: 2 });
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/`, formats: [], limit: 10 }),
    });
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Json);
    const documents = events.filter((e) => e.type === 'document').map((e) => e.data as Page);
    assert.equal(documents.length, 5, JSON.stringify(events.filter((e) => e.type === 'error')));
    assert.ok(documents.every((d) => d.metadata.statusCode === 200 && d.metadata.attempts === 2));
    for (const path of ['/', '/p/0', '/p/1', '/p/2', '/p/3']) assert.equal(site.count(path), 2, path);
    // Each page's retry waited out the Retry-After of its 429.
    for (const path of ['/', '/p/0', '/p/3']) {
      const [first, second] = site.requests.filter((r) => r.path === path);
      assert.ok(second!.at - first!.at >= 1900, `${path} retried ${second!.at - first!.at} ms after its 429`);
    }
    const throttled = events.filter((e) => e.type === 'status' && Array.isArray(e.throttled));
    assert.ok(throttled.length > 0, 'status events name the held host');
    const held = (throttled[0]!.throttled as { host: string; until: string }[])[0]!;
    assert.equal(held.host, new URL(site.url).host);
    assert.ok(!Number.isNaN(Date.parse(held.until)));
  });

  test('a v2 crawl of a site that resets first contacts completes with every page; its status warns while a host is held', async (t) => {
    const reset = await setup(t, { mode: 'reset', pages: 6 });
    const started = await reset.svc.post('/v2/crawl', { url: `${reset.site.url}/`, limit: 20 });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const done = await waitForCrawl(reset.svc, started.json.id as string);
    assert.equal(done.status, 'completed');
    const data = done.data as Page[];
    assert.equal(data.length, 7);
    assert.ok(data.every((d) => d.metadata.attempts === 2));

    const limited = await setup(t, { mode: '429', pages: 2, retryAfter: 2 });
    const job = await limited.svc.post('/v2/crawl', { url: `${limited.site.url}/`, limit: 5 });
    const warnings: string[] = [];
    const end = await waitForCrawl(limited.svc, job.json.id as string, (s) => {
      if (typeof s.warning === 'string') warnings.push(s.warning);
    });
    assert.equal(end.status, 'completed');
    assert.equal((end.data as Page[]).length, 3);
    const host = new URL(limited.site.url).host;
    assert.ok(
      warnings.some((w) => w.includes(host) && /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(w)),
      `a warning names ${host} and an ISO time: ${JSON.stringify(warnings)}`,
    );
  });

  test('a host that refuses most of its last 20 pages (403) is paused for the crawl instead of burning the limit', async (t) => {
    const { site, svc } = await setup(t, { mode: '403', pages: 60 });
    const { status, json } = await svc.post('/api/v1/crawl', { url: `${site.url}/`, formats: [], limit: 61 });
    assert.equal(status, 200);
    const pages = json.data as Page[];
    const errors = json.errors as { code: string; attempts: number }[];
    const paused = errors.filter((e) => e.code === 'HOST_PAUSED');
    assert.ok(pages.length >= 20 && pages.length < 40, `${pages.length} pages fetched before the pause`);
    assert.equal(pages.length + paused.length, 61);
    assert.ok(paused.every((e) => e.attempts === 0));
    assert.ok(site.requests.length < 40, `${site.requests.length} requests reached the host`);

    // As a job, the finished crawl's status still names the paused host.
    const again = await setup(t, { mode: '403', pages: 60 });
    const job = await again.svc.post('/v2/crawl', { url: `${again.site.url}/`, limit: 61 });
    const end = await waitForCrawl(again.svc, job.json.id as string);
    assert.equal(end.status, 'completed');
    const host = new URL(again.site.url).host;
    assert.match(String(end.warning), new RegExp(`Paused for this job: ${host.replace('.', '\\.')}`));
  });
});
