import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { site as startPlainSite, startService } from '../helpers.js';
import { call, json, over, poll, sleep } from '../jobs/http.js';
import type { Json, Reply } from '../jobs/http.js';

/** Firecrawl's async job routes (crawl, batch scrape, extract, llms.txt) over HTTP against loopback sites. */

type FcDoc = { markdown?: string; metadata: Json };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const docs = (r: Reply) => r.json.data as FcDoc[];
const sources = (list: FcDoc[]) => list.map((d) => d.metadata.sourceURL as string);
const isIso = (s: unknown) => typeof s === 'string' && new Date(s).toISOString() === s;

async function setup(t: TestContext, siteOptions: CrawlSiteOptions = {}, env: Record<string, string> = {}) {
  const site = await startCrawlSite(siteOptions);
  t.after(() => site.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  const api = (p: string, method?: string, body?: unknown) => call(svc.url + p, method, body);
  /** Starts a job with POST `start`, waits for its end at `<statusPath>/<id>`: the id and the final reply. */
  const run = async (start: string, body: Json, statusPath = start) => {
    const id = json(await api(start, 'POST', body)).id as string;
    const end = await poll(`${svc.url}${statusPath}/${id}`, over);
    return { id, end: { status: end.status, json: json(end) } };
  };
  return { site, svc, api, run };
}

/** Follows `next` from `first` to the end, checking each page's paging contract; answers every document. */
async function pageThrough(first: string, limit: number): Promise<FcDoc[]> {
  const all: FcDoc[] = [];
  for (let url: string | undefined = first; url;) {
    const r = await call(url);
    const data = json(r).data as FcDoc[];
    assert.ok(data.length <= limit, `at most ${limit} per page`);
    all.push(...data);
    url = undefined;
    if ('next' in r.json) {
      assert.ok(data.length > 0, 'a page with next has data');
      const next = new URL(r.json.next as string); // throws unless absolute
      assert.deepEqual(Object.fromEntries(next.searchParams), { skip: `${all.length}`, limit: `${limit}` });
      url = next.href;
    }
  }
  return all;
}

describe('Firecrawl crawl jobs (/v2/crawl, /v1/crawl)', () => {
  test('POST /v2/crawl answers 200 {success, id, url}; status completes with Firecrawl documents', async (t) => {
    const { site, svc, api } = await setup(t);
    const start = json(await api('/v2/crawl', 'POST', { url: `${site.url}/docs/`, sitemap: 'skip' }));
    const id = start.id as string;
    assert.equal(start.success, true);
    assert.match(id, UUID);
    assert.equal(start.url, `${svc.url}/v2/crawl/${id}`, 'absolute URL of the status');
    const end = json(await poll(start.url as string, over));
    assert.deepEqual([end.success, end.status, end.completed], [true, 'completed', 3]);
    assert.ok(typeof end.total === 'number' && end.total >= 3);
    assert.equal(typeof end.creditsUsed, 'number');
    assert.ok(isIso(end.expiresAt), String(end.expiresAt));
    assert.ok(!('next' in end), 'everything on one page');
    const data = end.data as FcDoc[];
    assert.deepEqual(
      sources(data).sort(),
      ['/docs/', '/docs/a', '/docs/b'].map((p) => site.url + p),
    );
    for (const { markdown, metadata: m } of data) {
      assert.match(markdown!, /a page of the generated test site/);
      assert.equal(m.url, m.sourceURL);
      assert.equal(m.statusCode, 200);
      assert.match(m.contentType as string, /^text\/html/);
      assert.match(m.scrapeId as string, UUID);
    }
  });

  test('scrapeOptions.onlyMainContent defaults to true', async (t) => {
    const plain = await startPlainSite(t);
    const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0' } });
    const markdownOf = async (scrapeOptions: Json) => {
      const body = { url: `${plain.url}/blog/backpressure`, limit: 1, sitemap: 'skip', scrapeOptions };
      const end = await poll(json(await call(`${svc.url}/v2/crawl`, 'POST', body)).url as string, over);
      assert.equal(end.json.status, 'completed');
      return docs(end)[0]!.markdown!;
    };
    const main = await markdownOf({});
    assert.match(main, /When a producer writes data faster/);
    assert.doesNotMatch(main, /All rights reserved|Share on Twitter/);
    assert.match(await markdownOf({ onlyMainContent: false }), /All rights reserved/);
  });

  test('paging: ?limit=3 gives an absolute next; every document once; the last page has no next (v2, v1)', async (t) => {
    const { site, svc, run } = await setup(t, { pages: 15 });
    for (const v of ['v2', 'v1']) {
      const body = v === 'v2' ? { url: site.url, sitemap: 'skip' } : { url: site.url, ignoreSitemap: true };
      const { id, end } = await run(`/${v}/crawl`, body);
      assert.equal(end.json.status, 'completed');
      const total = end.json.completed as number;
      assert.ok(total > 9, `enough documents for several pages (${total})`);
      assert.equal(docs(end).length, total);
      const paged = await pageThrough(`${svc.url}/${v}/crawl/${id}?limit=3`, 3);
      assert.equal(new Set(sources(paged)).size, total, `${v}: every document, none twice`);
      assert.deepEqual(sources(paged), sources(docs(end)), `${v}: in the order of the unpaged reply`);
      const past = json(await call(`${svc.url}/${v}/crawl/${id}?skip=${total}&limit=3`));
      assert.deepEqual([(past.data as unknown[]).length, 'next' in past], [0, false]);
    }
  });

  test('bad input is a 400 naming the field; unknown ids are 404 Job not found; v2 refuses non-UUID ids', async (t) => {
    const { site, api } = await setup(t, {}, { CRAWL_MAX_PAGES: '10' });
    const cases: [Json, RegExp][] = [
      [{ depth: 3 }, /unknown field 'depth'/],
      [{ includePaths: ['/docs/(a'] }, /includePaths\[0\]/],
      [{ limit: 11 }, /limit.*10/],
      [{ scrapeOptions: { formats: ['json'] } }, /scrapeOptions\.formats\[0\]/],
    ];
    for (const [extra, message] of cases) {
      const r = json(await api('/v2/crawl', 'POST', { url: site.url, limit: 5, ...extra }), 400);
      assert.equal(r.success, false);
      assert.match(r.error as string, message);
    }
    const unknown = randomUUID();
    for (const base of ['/v2/crawl', '/v1/crawl', '/v2/batch/scrape', '/v1/batch/scrape']) {
      for (const route of ['GET ', 'GET /errors', 'DELETE ']) {
        const [method, suffix] = route.split(' ') as [string, string];
        const r = await api(`${base}/${unknown}${suffix}`, method);
        assert.deepEqual([r.status, r.json.success, r.json.error], [404, false, 'Job not found'], route);
      }
    }
    assert.equal((await api('/v2/crawl/not-a-uuid')).status, 400);
    assert.equal((await api('/v2/crawl/not-a-uuid', 'DELETE')).status, 400);
    assert.equal((await api('/v1/crawl/not-a-uuid')).status, 404);
    assert.deepEqual(site.hits, [], 'nothing was fetched');
  });

  test('a crawl without limit is accepted when CRAWL_MAX_PAGES is below 10,000', async (t) => {
    const { site, api } = await setup(t, {}, { CRAWL_MAX_PAGES: '10' });
    json(await api('/v2/crawl', 'POST', { url: `${site.url}/docs/b`, sitemap: 'skip' }));
  });

  test('GET /v2/crawl/:id/errors lists failed and robots-blocked URLs; v1 DELETE .../errors answers the same', async (t) => {
    const { site, api, run } = await setup(t, { pages: 3 });
    const { id, end } = await run('/v2/crawl', {
      url: `${site.url}/gen/0`,
      crawlEntireDomain: true, // /private/0 (robots-disallowed) is outside /gen/
      allowExternalLinks: true, // https://external.example/ does not resolve: a failed page
      excludePaths: ['^/(list|docs|blog)'],
      sitemap: 'skip',
    });
    assert.equal(end.json.status, 'completed');
    const r = json(await api(`/v2/crawl/${id}/errors`));
    const errors = r.errors as Json[];
    for (const e of errors) {
      assert.match(e.id as string, UUID);
      assert.ok(isIso(e.timestamp), String(e.timestamp));
      assert.ok(typeof e.url === 'string' && typeof e.error === 'string' && typeof e.code === 'string');
    }
    const external = errors.find((e) => e.url === 'https://external.example/');
    assert.equal(external?.code, 'TARGET_UNREACHABLE', JSON.stringify(errors));
    assert.ok((r.robotsBlocked as string[]).includes(`${site.url}/private/0`), JSON.stringify(r));
    assert.ok(!site.paths().some((p) => p.startsWith('/private/')));
    assert.deepEqual(json(await api(`/v1/crawl/${id}/errors`, 'DELETE')), r);
    assert.deepEqual(json(await api(`/v1/crawl/${id}/errors`)), r);
  });

  test('DELETE /v2/crawl/:id cancels: fetching stops, documents stay readable; a second DELETE is no error', async (t) => {
    const { site, api } = await setup(t, { pages: 300, delayMs: 200 });
    const start = json(await api('/v2/crawl', 'POST', { url: site.url, sitemap: 'skip' }));
    const before = await poll(start.url as string, (r) => over(r) || docs(r).length >= 3);
    assert.equal(before.json.status, 'scraping', 'still running when cancelled');
    const cancel = json(await api(`/v2/crawl/${start.id}`, 'DELETE'));
    const hitsAtCancel = site.hits.length;
    assert.equal(cancel.status, 'cancelled');
    const after = json(await api(`/v2/crawl/${start.id}`));
    assert.equal(after.status, 'cancelled');
    assert.ok((after.data as unknown[]).length >= docs(before).length, 'documents so far stay readable');
    await sleep(2000); // what reaches the site after the cancel: at most requests already on their way
    const late = site.hits.length - hitsAtCancel;
    assert.ok(late <= 5, `${late} requests reached the site after the cancel`);
    const later = json(await api(`/v2/crawl/${start.id}`));
    assert.equal(later.status, 'cancelled');
    assert.deepEqual(later.data, after.data, 'no documents added after the cancel');
    assert.equal(later.completed, (later.data as unknown[]).length);
    assert.equal(json(await api(`/v2/crawl/${start.id}`, 'DELETE')).status, 'cancelled');
  });

  test('GET /v2/crawl/active lists a running crawl, not a finished or cancelled one (v2, v1)', async (t) => {
    const { site, api, run } = await setup(t, { pages: 300, delayMs: 200 });
    const done = await run('/v2/crawl', { url: `${site.url}/docs/b`, sitemap: 'skip' });
    assert.equal(done.end.json.status, 'completed');
    const id = json(await api('/v2/crawl', 'POST', { url: `${site.url}/`, sitemap: 'skip' })).id;
    const activeIds = async (v: string) => {
      const active = json(await api(`/${v}/crawl/active`));
      assert.equal(active.success, true);
      return active.crawls as Json[];
    };
    for (const v of ['v2', 'v1']) {
      const crawls = await activeIds(v);
      assert.equal(crawls.find((c) => c.id === id)?.url, `${site.url}/`, JSON.stringify(crawls));
      assert.ok(!crawls.some((c) => c.id === done.id), 'a finished crawl is not active');
    }
    json(await api(`/v2/crawl/${id}`, 'DELETE'));
    assert.ok(!(await activeIds('v2')).some((c) => c.id === id), 'a cancelled crawl is not active');
  });
});

describe('Firecrawl batch scrape jobs', () => {
  test('v2 lists invalid URLs and scrapes the rest; errors; v1 refuses invalid URLs; v1 batch ids at /v1/crawl/:id', async (t) => {
    const { site, svc, api } = await setup(t);
    const urls = ['/docs/a', '/docs/b', '/blog/x'].map((p) => site.url + p);
    const png = `${site.url}/broken/logo.png`; // fetched, but not a page: a failed URL
    const start = json(await api('/v2/batch/scrape', 'POST', { urls: [...urls, png, 'not a url'] }));
    const id = start.id as string;
    assert.match(id, UUID);
    assert.deepEqual(start.invalidURLs, ['not a url']);
    assert.equal(start.url, `${svc.url}/v2/batch/scrape/${id}`);
    const end = json(await poll(start.url as string, over));
    assert.deepEqual([end.status, end.completed], ['completed', 3]);
    assert.deepEqual(sources(end.data as FcDoc[]).sort(), [...urls].sort());
    const errors = json(await api(`/v2/batch/scrape/${id}/errors`));
    assert.deepEqual(
      (errors.errors as Json[]).map((e) => e.url),
      [png],
    );
    assert.deepEqual(errors.robotsBlocked, []);
    assert.equal((await api(`/v2/crawl/${id}`)).status, 404, 'a batch is not a v2 crawl');
    const refused = json(await api('/v1/batch/scrape', 'POST', { urls: [urls[0], 'not a url'] }), 400);
    assert.match(refused.error as string, /urls\[1\]/);
    const v1 = json(await api('/v1/batch/scrape', 'POST', { urls: urls.slice(0, 2) }));
    assert.ok(!('invalidURLs' in v1), 'v1 answers invalidURLs only when asked to ignore them');
    const v1End = json(await poll(`${svc.url}/v1/crawl/${v1.id}`, over));
    assert.equal(v1End.status, 'completed');
    assert.deepEqual(sources(v1End.data as FcDoc[]).sort(), urls.slice(0, 2).sort());
    assert.equal(docs(await api(`/v1/batch/scrape/${v1.id}`)).length, 2);
  });
});

describe('Firecrawl extract and llms.txt jobs', () => {
  test('extract (v2 and v1) runs on the server LLM (OPENAI_BASE_URL); without one it is a 400', async (t) => {
    const llm = await startLlmStub();
    t.after(() => llm.close());
    llm.reply = () => ({ text: '{"title":"Docs A","words":12}' });
    const env = { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-job', MODEL_NAME: 'tiny-model' };
    const { site, svc, api } = await setup(t, {}, env);
    const schema = { type: 'object', properties: { title: { type: 'string' }, words: { type: 'number' } } };
    const body = { urls: [`${site.url}/docs/a`], prompt: 'Name the page', schema };
    for (const v of ['v2', 'v1']) {
      const start = json(await api(`/${v}/extract`, 'POST', body));
      assert.equal(start.success, true);
      assert.match(start.id as string, UUID);
      const done = json(await poll(`${svc.url}/${v}/extract/${start.id}`, over));
      assert.deepEqual(
        [done.status, done.success, 'error' in done],
        ['completed', true, false],
        JSON.stringify(done),
      );
      assert.deepEqual(done.data, { title: 'Docs A', words: 12 });
    }
    assert.equal(llm.requests.length, 2);
    const sent = llm.requests[0]!;
    assert.deepEqual([sent.headers.authorization, sent.body.model], ['Bearer sk-job', 'tiny-model']);
    assert.match(JSON.stringify(sent.body), /Name the page/);
    assert.match(JSON.stringify(sent.body), /Docs A/);
    assert.equal(json(await api(`/v2/extract/${randomUUID()}`), 404).error, 'Extract job not found');
    const bare = await startService(t, { resolver: fixtureResolver });
    for (const v of ['v2', 'v1']) {
      const r = await bare.post(`/${v}/extract`, body);
      assert.match(json(r, 400).error as string, /OPENAI_BASE_URL/);
    }
  });

  test('POST /v1/llmstxt: processing, then completed with data.llmstxt and no error key', async (t) => {
    const { site, svc, api } = await setup(t, { pages: 7, delayMs: 150 });
    const start = json(await api('/v1/llmstxt', 'POST', { url: `${site.url}/`, maxUrls: 3 }));
    assert.equal(start.success, true);
    assert.match(start.id as string, UUID);
    const first = json(await api(`/v1/llmstxt/${start.id}`));
    assert.deepEqual([first.status, first.success, 'error' in first], ['processing', true, false]);
    const done = json(await poll(`${svc.url}/v1/llmstxt/${start.id}`, over));
    assert.deepEqual([done.status, done.success], ['completed', true], JSON.stringify(done));
    const llmstxt = (done.data as Json).llmstxt;
    assert.ok(typeof llmstxt === 'string' && llmstxt.length > 0, JSON.stringify(done));
    assert.ok(!('error' in done), 'no error key on success (the v1 SDK reads any error key as a failure)');
    assert.ok(isIso(done.expiresAt));
  });
});

describe('webhooks, expiry and the job store', () => {
  test('webhook: started, page, completed in order, signed, with headers and metadata; a 500 is retried', async (t) => {
    const received: { status: number; headers: IncomingHttpHeaders; raw: string }[] = [];
    const hook = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const status = received.length === 0 ? 500 : 200; // the first delivery fails
        received.push({ status, headers: req.headers, raw });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => hook.close(() => resolve())));
    const { site, api } = await setup(t, {}, { WEBHOOK_SECRET: 's3cret' });
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const events = ['started', 'page', 'completed'];
    const webhook = { url, headers: { 'x-test': '1' }, metadata: { a: 1 }, events };
    const body = { url: `${site.url}/docs/`, sitemap: 'skip', webhook };
    const id = json(await api('/v2/crawl', 'POST', body)).id;
    const bodyOf = (d: { raw: string }) => JSON.parse(d.raw) as Json;
    const end = Date.now() + 60_000;
    while (!received.some((d) => d.status === 200 && bodyOf(d).type === 'crawl.completed')) {
      if (Date.now() > end) assert.fail(`no crawl.completed: ${received.map((d) => d.raw).join('\n')}`);
      await sleep(50);
    }
    assert.deepEqual([received[0]!.status, bodyOf(received[0]!).type], [500, 'crawl.started']);
    assert.equal(received[1]!.raw, received[0]!.raw, 'the failed delivery was retried with the same body');
    const delivered = received.filter((d) => d.status === 200);
    const types = delivered.map((d) => bodyOf(d).type);
    assert.deepEqual(types, ['crawl.started', 'crawl.page', 'crawl.page', 'crawl.page', 'crawl.completed']);
    for (const d of delivered) {
      const body = bodyOf(d);
      assert.deepEqual([body.id, body.success, body.metadata], [id, true, { a: 1 }]);
      assert.equal(d.headers['x-test'], '1');
      assert.match(d.headers['content-type']!, /^application\/json/);
      const hex = createHmac('sha256', 's3cret').update(d.raw).digest('hex');
      assert.equal(d.headers['x-firecrawl-signature'], `sha256=${hex}`);
    }
    const pages = delivered.map(bodyOf).filter((b) => b.type === 'crawl.page');
    const pageDocs = pages.flatMap((b) => b.data as FcDoc[]);
    assert.equal(pageDocs.length, pages.length, 'one document per page event');
    assert.ok(pageDocs.every((d) => typeof d.markdown === 'string'));
    assert.deepEqual(
      sources(pageDocs).sort(),
      ['/docs/', '/docs/a', '/docs/b'].map((p) => site.url + p),
    );
  });

  test('a finished job expires after JOB_TTL_HOURS (fractional hours) and is purged: 404', async (t) => {
    const env = { JOB_TTL_HOURS: '0.0003', JOB_PURGE_INTERVAL_MS: '200' };
    const { site, svc, api, run } = await setup(t, {}, env);
    // Warm the content worker first, so the crawl ends well within its 1 s TTL (a running job is never purged; see the next test).
    json(await api('/api/v1/scrape', 'POST', { url: `${site.url}/docs/a` }));
    const { id, end } = await run('/v2/crawl', { url: `${site.url}/docs/b`, sitemap: 'skip' });
    assert.deepEqual([end.json.status, docs(end).length], ['completed', 1]);
    const purged = await poll(`${svc.url}/v2/crawl/${id}`, (r) => r.status !== 200, 30_000);
    assert.deepEqual([purged.status, purged.json.error], [404, 'Job not found']);
    assert.equal((await api(`/v2/crawl/${id}/errors`)).status, 404);
  });

  test('a running job is not purged before it ends: the TTL counts from its end', async (t) => {
    const env = { JOB_TTL_HOURS: '0.0003', JOB_PURGE_INTERVAL_MS: '200', CRAWL_HOST_CONCURRENCY: '1' };
    const { site, api } = await setup(t, { pages: 20, delayMs: 300 }, env);
    const start = json(await api('/v2/crawl', 'POST', { url: site.url, sitemap: 'skip', limit: 8 }));
    const end = await poll(start.url as string, over);
    assert.equal(end.status, 200, `the running job was purged (after ${site.hits.length} requests)`);
    assert.equal(end.json.status, 'completed');
  });

  test('a corrupt job store: the service starts, job and profile routes answer 503 STORE_UNAVAILABLE, scrape still works', async (t) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-corrupt-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    writeFileSync(path.join(dataDir, 'pagewright.db'), 'garbage, not SQLite at all\n'.repeat(400));
    const { site, api } = await setup(t, {}, { DATA_DIR: dataDir });
    const crawl = json(await api('/v2/crawl', 'POST', { url: site.url }), 503);
    assert.deepEqual([crawl.success, crawl.code], [false, 'STORE_UNAVAILABLE']);
    assert.equal(json(await api(`/v2/crawl/${randomUUID()}`), 503).code, 'STORE_UNAVAILABLE');
    // Profiles live in the same file: refused with the reason, never kept in memory and lost at exit.
    const profiles = json(await api('/api/v1/profiles'), 503);
    assert.equal(profiles.code, 'STORE_UNAVAILABLE');
    assert.match(String(profiles.error), /Profile store unavailable/);
    const scrape = json(await api('/api/v1/scrape', 'POST', { url: `${site.url}/docs/a` }));
    assert.match((scrape.data as FcDoc).markdown!, /Docs A/);
  });
});
