import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';
import { call, json, over, poll, sleep } from '../jobs/http.js';

/** How Firecrawl's fields map onto this server, what it refuses, and the guards around jobs. */

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const site = await startCrawlSite();
  t.after(() => site.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  const api = (p: string, method?: string, body?: unknown) => call(svc.url + p, method, body);
  return { site, svc, api };
}

describe('Firecrawl job fields', () => {
  test('fields asking for what this server cannot do are 400s naming them', async (t) => {
    const { site, api } = await setup(t);
    const cases: [string, object, RegExp][] = [
      ['/v2/crawl', { url: site.url, zeroDataRetention: true }, /^zeroDataRetention: /],
      ['/v2/crawl', { url: site.url, delay: 120 }, /^delay: must be <= 30 seconds/],
      [
        '/v2/crawl',
        { url: site.url, scrapeOptions: { location: { languages: ['not a tag!'] } } },
        /^scrapeOptions\.location\.languages: /,
      ],
      [
        '/v2/crawl',
        { url: site.url, scrapeOptions: { formats: [{ type: 'screenshot', quality: 50 }] } },
        /^scrapeOptions\.formats\[0\]\.quality: /,
      ],
      ['/v2/batch/scrape', { urls: [site.url], zeroDataRetention: true }, /^zeroDataRetention: /],
      ['/v2/batch/scrape', { urls: [site.url], proxy: 'stealth' }, /^proxy: /],
    ];
    for (const [route, body, message] of cases) {
      const reply = json(await api(route, 'POST', body), 400);
      assert.match(reply.error as string, message, `${route} ${JSON.stringify(body)}`);
    }
    assert.deepEqual(site.hits, [], 'nothing was fetched');
  });

  test('maxDiscoveryDepth 0: the start page and the sitemap pages (discovery depth 0), no links followed', async (t) => {
    const { site, svc, api } = await setup(t);
    const { id } = json(
      await api('/v2/crawl', 'POST', { url: site.url, maxDiscoveryDepth: 0, crawlEntireDomain: true }),
    );
    const end = json(await poll(`${svc.url}/v2/crawl/${id}`, over));
    assert.equal(end.status, 'completed');
    const paths = (end.data as { metadata: { sourceURL: string } }[])
      .map((d) => new URL(d.metadata.sourceURL).pathname)
      .sort();
    assert.deepEqual(paths, ['/', '/docs/a', '/gen/0', '/orphan/1', '/orphan/2', '/orphan/3']);
  });

  test('fields accepted without effect are named in the status warning, not silently ignored', async (t) => {
    const { site, svc, api } = await setup(t);
    const body = { url: site.url, limit: 1, scrapeOptions: { maxAge: 60_000, fastMode: true } };
    const { id } = json(await api('/v2/crawl', 'POST', body));
    const end = json(await poll(`${svc.url}/v2/crawl/${id}`, over));
    assert.match(String(end.warning), /without effect.*scrapeOptions\.maxAge, scrapeOptions\.fastMode/);
    const batch = json(await api('/v2/batch/scrape', 'POST', { urls: [site.url], fastMode: true }));
    const batchEnd = json(await poll(`${svc.url}/v2/batch/scrape/${batch.id}`, over));
    assert.match(String(batchEnd.warning), /without effect.*fastMode/);
    const plain = json(await api('/v2/crawl', 'POST', { url: site.url, limit: 1 }));
    assert.equal('warning' in json(await poll(`${svc.url}/v2/crawl/${plain.id}`, over)), false);
  });

  test('extract: v2 skips invalid URLs and lists them; v1 refuses them', async (t) => {
    const llm = await startLlmStub();
    t.after(() => llm.close());
    llm.reply = () => ({ text: '{"title":"A"}' });
    const { site, svc, api } = await setup(t, { OPENAI_BASE_URL: llm.url });
    const body = { urls: [`${site.url}/docs/a`, 'not a url'], prompt: 'Title?' };
    const start = json(await api('/v2/extract', 'POST', body));
    assert.deepEqual(start.invalidURLs, ['not a url']);
    const done = json(await poll(`${svc.url}/v2/extract/${start.id}`, over));
    assert.deepEqual([done.status, done.data], ['completed', { title: 'A' }]);
    assert.match(json(await api('/v1/extract', 'POST', body), 400).error as string, /^urls\[1\]/);
  });
});

describe('guards around jobs', () => {
  test('a webhook the SSRF guard would refuse is a 400 when the job is started, not a silent failure later', async (t) => {
    const site = await startCrawlSite();
    t.after(() => site.close());
    const svc = await startService(t, {
      resolver: fixtureResolver,
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
    });
    const url = 'http://public.example/'; // never fetched: the webhook is refused first
    for (const webhook of ['http://127.0.0.1:9/hook', { url: 'http://site.test/hook' }]) {
      const reply = json(await call(`${svc.url}/v2/crawl`, 'POST', { url, webhook }), 400);
      assert.match(reply.error as string, /^webhook\.url: /);
    }
    assert.deepEqual(site.hits, []);
  });

  test('a DATA_DIR used by another live process: job routes answer 503 naming it; nothing runs twice', async (t) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-lock-'));
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    t.after(() => {
      other.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });
    writeFileSync(path.join(dataDir, 'pagewright.pid'), `${other.pid}\n`);
    const svc = await startService(t, { env: { DATA_DIR: dataDir } });
    const reply = json(await call(`${svc.url}/v2/crawl/active`), 503);
    assert.equal(reply.code, 'STORE_UNAVAILABLE');
    assert.match(
      reply.error as string,
      new RegExp(`in use by another Pagewright process \\(pid ${other.pid}\\)`),
    );
  });
});

describe('the native crawl stream', () => {
  test('a parallel crawl read slowly still ends: every worker waiting for room is woken', async (t) => {
    // Pages large enough that the socket's buffers fill and the crawl's own buffer of 32 events with them.
    const site = await startCrawlSite({ pages: 400, padBytes: 100_000 });
    t.after(() => site.close());
    const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
    const res = await fetch(`${svc.url}/api/v1/crawl/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.url}/gen/0`,
        limit: 400,
        maxDepth: 10,
        useParallel: true,
        ignoreSitemap: true,
        allowBackwardLinks: true,
        includePaths: ['/gen/*'],
      }),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let first = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (first) {
        first = false;
        await sleep(2000); // the buffers fill and every worker waits for room
      }
    }
    const events = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => JSON.parse(e.slice(6)) as { type: string; crawled?: number });
    const complete = events.at(-1);
    assert.equal(complete?.type, 'complete');
    assert.equal(events.filter((e) => e.type === 'document').length, complete?.crawled);
  });
});
