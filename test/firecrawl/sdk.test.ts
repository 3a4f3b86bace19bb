import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl, { FirecrawlAppV1, SdkError } from '@mendable/firecrawl-js';
import type { Document } from '@mendable/firecrawl-js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSite, CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';

/**
 * The real Firecrawl SDK (@mendable/firecrawl-js, v2 client and its v1 client) against the running service's
 * Firecrawl-compatible job routes at the root (/v2/..., /v1/...), with the generated site on loopback.
 */

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** Generous bound on waiting for a job (the suite must pass on a slow machine); only to avoid hanging. */
const DEADLINE_MS = 120_000;

interface SetupOptions {
  site?: CrawlSiteOptions;
  /** Start the LLM stub and point the server's LLM (OPENAI_BASE_URL) at it. */
  llm?: boolean;
  env?: Record<string, string>;
}

async function setup(t: TestContext, o: SetupOptions = {}) {
  const site = await startCrawlSite(o.site);
  t.after(() => site.close());
  const llm = o.llm ? await startLlmStub() : null;
  if (llm) t.after(() => llm.close());
  const llmEnv: Record<string, string> = llm ? { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' } : {};
  const env = { CRAWL_MIN_DELAY_MS: '0', ...llmEnv, ...o.env };
  const svc = await startService(t, { resolver: fixtureResolver, env });
  return { site, svc, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }), llm: llm! };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `read` until `done` holds for its value (polling, no timing assertion). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`still waiting: ${JSON.stringify(value).slice(0, 500)}`);
    await sleep(100);
  }
}

const over = (job: { status: string }) => job.status !== 'scraping';
const hasCrawls = (a: { crawls: unknown[] }) => a.crawls.length > 0;
const urlsOf = (reply: { errors: { url: string }[] }) => reply.errors.map((e) => e.url);
type V1Status = Extract<Awaited<ReturnType<FirecrawlAppV1['checkCrawlStatus']>>, { success: true }>;

/** An assert.rejects validator: the v2 SDK's SdkError with this HTTP status (and message). */
const sdkStatus = (status: number, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof SdkError, String(err));
  assert.equal(err.status, status, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

/** An assert.rejects validator: the v1 SDK's FirecrawlError with this statusCode (and message). */
const v1Status = (statusCode: number, message?: RegExp) => (err: unknown) => {
  const e = err as { statusCode?: number; message: string };
  assert.equal(e.statusCode, statusCode, e.message);
  if (message) assert.match(e.message, message);
  return true;
};

/** A v1 reply that is not `{success:false, error}`. */
function ok<T extends { success: boolean; error?: string }>(res: T): Exclude<T, { success: false }> {
  assert.equal(res.success, true, res.error);
  return res as Exclude<T, { success: false }>;
}

const sourcesOf = (site: CrawlSite, docs: Document[]) =>
  docs.map((d) => String(d.metadata?.sourceURL).replace(site.url, ''));

function assertDocuments(site: CrawlSite, docs: Document[], count: number): void {
  assert.equal(docs.length, count);
  assert.equal(new Set(sourcesOf(site, docs)).size, count, 'no document twice');
  for (const doc of docs) {
    assert.equal(typeof doc.markdown, 'string');
    assert.match(doc.markdown!, /a page of the generated test site/);
    assert.ok(String(doc.metadata?.sourceURL).startsWith(site.url));
    assert.equal(doc.metadata?.statusCode, 200);
    assert.equal(typeof doc.metadata?.title, 'string');
  }
}

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, links: { type: 'number' } },
  required: ['title'],
};
const ANSWER = { title: 'Home', links: 5 };
const MARKDOWN = { formats: ['markdown' as const] };

describe('Firecrawl SDK v2 client', () => {
  test('crawl() waits for completion and returns every document', async (t) => {
    const { site, svc, fc } = await setup(t);
    const job = await fc.crawl(site.url, { limit: 5, scrapeOptions: MARKDOWN, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    assert.equal(job.completed, 5);
    assert.equal(job.total, 5);
    assert.equal(job.next, null);
    assertDocuments(site, job.data, 5);
    assert.equal(sourcesOf(site, job.data)[0], '/', 'the start URL first');
    assert.ok(!Number.isNaN(Date.parse(job.expiresAt!)));
    // The start reply's `url` is absolute, on the address the client used.
    const started = await fc.startCrawl(site.url, { limit: 1 });
    assert.equal(started.url, `${svc.url}/v2/crawl/${started.id}`);
  });

  test('getCrawlStatus pages past 10 MiB: autoPaginate gathers every page, or `next` is absolute and followable', async (t) => {
    const { site, svc, fc } = await setup(t, { site: { padBytes: 1_600_000 } });
    const { id } = await fc.startCrawl(site.url, { limit: 8, scrapeOptions: MARKDOWN });
    const first = await until(() => fc.getCrawlStatus(id, { autoPaginate: false }), over);
    assert.equal(first.status, 'completed');
    assert.equal(first.completed, 8);
    assert.ok(first.data.length > 0 && first.data.length < 8, `first page holds ${first.data.length}`);
    assert.ok(first.next, 'a next page');
    assert.equal(first.next, `${svc.url}/v2/crawl/${id}?skip=${first.data.length}`);
    // Followed by hand: the last page carries no `next`.
    const docs = [...first.data];
    let next: string | undefined = first.next;
    while (next) {
      const res: Response = await fetch(next, { headers: { authorization: 'Bearer test' } });
      assert.equal(res.status, 200);
      const page = (await res.json()) as { success: boolean; data: Document[]; next?: string };
      assert.equal(page.success, true);
      assert.ok(page.data.length > 0);
      assert.ok(!('next' in page) || page.next, 'next is absent rather than null');
      docs.push(...page.data);
      next = page.next;
    }
    assertDocuments(site, docs, 8);
    // The SDK's own paging (autoPaginate by default) gives the same documents in the same order.
    const all = await fc.getCrawlStatus(id);
    assert.equal(all.next, null);
    assert.deepEqual(sourcesOf(site, all.data), sourcesOf(site, docs));
    assert.ok(all.data.every((d) => d.markdown!.length > 1_600_000));
  });

  test('getActiveCrawls lists a running crawl; cancelCrawl stops it and the crawl() waiter returns cancelled', async (t) => {
    const { site, fc } = await setup(t, { site: { pages: 63, delayMs: 300 } });
    const waiting = fc.crawl(site.url, { limit: 60, pollInterval: 1 });
    const active = await until(() => fc.getActiveCrawls(), hasCrawls);
    assert.equal(active.success, true);
    assert.equal(active.crawls.length, 1);
    const running = active.crawls[0]!;
    assert.equal(running.url, site.url);
    assert.equal(typeof running.teamId, 'string');
    assert.equal((running.options as { limit?: number }).limit, 60);
    assert.equal(await fc.cancelCrawl(running.id), true);
    const job = await waiting;
    assert.equal(job.status, 'cancelled');
    assert.ok(job.completed < 60, 'stopped early');
    assert.equal((await fc.getCrawlStatus(running.id)).status, 'cancelled');
    assert.deepEqual((await fc.getActiveCrawls()).crawls, [], 'a cancelled crawl is not active');
  });

  test('cancelCrawl on a finished crawl: 409 "Crawl is already completed", as Firecrawl answers', async (t) => {
    const { site, fc } = await setup(t);
    const job = await fc.crawl(site.url, { limit: 2, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    await assert.rejects(fc.cancelCrawl(job.id), (err: { status?: number; message?: string }) => {
      assert.equal(err.status, 409);
      assert.match(String(err.message), /Crawl is already completed/);
      return true;
    });
    assert.equal((await fc.getCrawlStatus(job.id)).status, 'completed', 'nothing changed');
  });

  test('getCrawlErrors: failed URLs and robots-blocked URLs', async (t) => {
    const { site, fc } = await setup(t, { site: { pages: 3 } });
    const broken = await fc.crawl(`${site.url}/broken/`, { sitemap: 'skip', pollInterval: 1 });
    assert.equal(broken.status, 'completed');
    assert.ok(sourcesOf(site, broken.data).includes('/broken/ok'));
    const { errors, robotsBlocked } = await fc.getCrawlErrors(broken.id);
    assert.equal(errors.length, 1);
    const [error] = errors;
    assert.equal(error!.url, `${site.url}/broken/logo.png`);
    assert.equal(typeof error!.id, 'string');
    assert.equal(typeof error!.code, 'string');
    assert.match(error!.error, /image\/png/);
    assert.ok(!Number.isNaN(Date.parse(error!.timestamp!)));
    assert.deepEqual(robotsBlocked, []);
    // /gen/0 (depth 1) links to /private/0, which robots.txt disallows.
    const home = await fc.crawl(site.url, { sitemap: 'skip', maxDiscoveryDepth: 2, pollInterval: 1 });
    const blocked = await fc.getCrawlErrors(home.id);
    assert.deepEqual(blocked.errors, []);
    assert.ok(blocked.robotsBlocked.includes(`${site.url}/private/0`), JSON.stringify(blocked));
    assert.ok(!site.paths().some((p) => p.startsWith('/private/')));
  });

  test('batchScrape() completes with the documents; invalid URLs are listed (ignoreInvalidURLs by default)', async (t) => {
    const { site, svc, fc } = await setup(t);
    const urls = [`${site.url}/`, `${site.url}/docs/a`, `${site.url}/blog/x`];
    const job = await fc.batchScrape(urls, { options: MARKDOWN, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    assert.equal(job.completed, 3);
    assert.equal(job.total, 3);
    assertDocuments(site, job.data, 3);
    assert.deepEqual(sourcesOf(site, job.data).sort(), ['/', '/blog/x', '/docs/a']);
    assert.ok(!site.paths().includes('/gen/0'), 'a batch follows no link');
    const started = await fc.startBatchScrape([`${site.url}/`, 'not a url'], {
      options: { formats: ['markdown'] },
    });
    assert.deepEqual(started.invalidURLs, ['not a url']);
    assert.equal(started.url, `${svc.url}/v2/batch/scrape/${started.id}`);
    const status = await until(() => fc.getBatchScrapeStatus(started.id), over);
    assert.equal(status.status, 'completed');
    assert.equal(status.data.length, 1);
  });

  test('getBatchScrapeErrors lists the URLs that failed', async (t) => {
    const { site, fc } = await setup(t);
    const png = `${site.url}/broken/logo.png`;
    const job = await fc.batchScrape([png, `${site.url}/broken/ok`], {
      options: { formats: ['markdown'] },
      pollInterval: 1,
    });
    assert.equal(job.status, 'completed');
    assert.deepEqual(sourcesOf(site, job.data), ['/broken/ok'], 'failed scrapes are not documents');
    const { errors, robotsBlocked } = await fc.getBatchScrapeErrors(job.id);
    assert.deepEqual(urlsOf({ errors }), [png]);
    assert.match(errors[0]!.error, /image\/png/);
    assert.deepEqual(robotsBlocked, []);
  });

  test('extract() runs on the server LLM and returns its object as data', async (t) => {
    const { site, fc, llm } = await setup(t, { llm: true });
    llm.reply = () => ({ text: JSON.stringify(ANSWER) });
    const res = await fc.extract({
      urls: [`${site.url}/`],
      prompt: 'The page title and how many links it has',
      schema: SCHEMA,
      pollInterval: 1,
    });
    assert.equal(res.success, true, res.error);
    assert.equal(res.status, 'completed');
    assert.deepEqual(res.data, ANSWER);
    assert.equal(res.error, undefined);
    assert.ok(llm.requests.length >= 1);
    const sent = JSON.stringify(llm.requests[0]!.body);
    assert.match(sent, /how many links it has/);
    assert.match(sent, /This is Home/, 'the page content reaches the LLM');
    assert.equal(llm.requests[0]!.body.model, 'stub-model');
  });

  test('unknown ids (and a batch id asked as a crawl): the SDK throws with status 404', async (t) => {
    const { site, fc } = await setup(t);
    const batch = await fc.startBatchScrape([`${site.url}/`], {});
    await assert.rejects(fc.getCrawlStatus(batch.id), sdkStatus(404));
    await assert.rejects(fc.getCrawlErrors(batch.id), sdkStatus(404));
    await assert.rejects(fc.getCrawlStatus(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.getCrawlErrors(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.cancelCrawl(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.getBatchScrapeStatus(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.getBatchScrapeErrors(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.cancelBatchScrape(UNKNOWN_ID), sdkStatus(404));
    await assert.rejects(fc.getExtractStatus(UNKNOWN_ID), sdkStatus(404));
  });

  test('bad input: the SDK throws with status 400 and the server names the field', async (t) => {
    const { site, fc } = await setup(t);
    const json = { type: 'json' as const, prompt: 'x' };
    const crawl = fc.crawl(site.url, { scrapeOptions: { formats: [json] }, pollInterval: 1 });
    await assert.rejects(crawl, sdkStatus(400, /scrapeOptions\.formats\[0\]/));
    await assert.rejects(fc.startCrawl(site.url, { excludePaths: ['(unclosed'] }), sdkStatus(400));
    await assert.rejects(fc.batchScrape([`${site.url}/`], { options: { formats: [json] } }), sdkStatus(400));
    await assert.rejects(fc.startBatchScrape(['not a url'], {}), sdkStatus(400));
    // No server LLM is configured here: extract is refused up front.
    await assert.rejects(fc.startExtract({ urls: [`${site.url}/`], prompt: 'x' }), sdkStatus(400));
    assert.deepEqual((await fc.getActiveCrawls()).crawls, [], 'nothing was started');
  });
});

describe('Firecrawl SDK v1 client', () => {
  test('asyncCrawlUrl + checkCrawlStatus: getAll follows `next` past 10 MiB; skip/limit and nextURL page by hand', async (t) => {
    const { site, svc } = await setup(t, { site: { padBytes: 1_600_000 } });
    const app = new FirecrawlAppV1({ apiKey: 'test', apiUrl: svc.url });
    const started = ok(await app.asyncCrawlUrl(site.url, { limit: 8 }));
    assert.equal(started.url, `${svc.url}/v1/crawl/${started.id}`);
    const id = started.id!;
    const done = ok(await until(async () => ok(await app.checkCrawlStatus(id)), over));
    assert.equal(done.status, 'completed');
    assert.ok(done.data.length < 8 && done.next, 'more than one page');
    assert.ok(done.expiresAt instanceof Date && !Number.isNaN(done.expiresAt.getTime()));
    const all = ok(await app.checkCrawlStatus(id, true));
    assert.equal(all.data.length, 8);
    const sources = all.data.map((d) => d.metadata?.sourceURL);
    assert.equal(new Set(sources).size, 8);
    // By hand: two at a time with skip and limit, then nextURL (which keeps the limit).
    const first = ok(await app.checkCrawlStatus(id, false, undefined, 0, 2));
    assert.equal(first.data.length, 2);
    assert.equal(first.next, `${svc.url}/v1/crawl/${id}?skip=2&limit=2`);
    const paged = [...first.data];
    let next: string | undefined = first.next;
    while (next) {
      const page: V1Status = ok(await app.checkCrawlStatus(id, false, next));
      assert.ok(page.data.length > 0 && page.data.length <= 2);
      paged.push(...page.data);
      next = page.next;
    }
    assert.deepEqual(
      paged.map((d) => d.metadata?.sourceURL),
      sources,
    );
  });

  test('crawlUrl waits for completion and gathers every page past 10 MiB (monitorJobStatus follows `next`)', async (t) => {
    const { site, fc } = await setup(t, { site: { padBytes: 1_600_000 } });
    const res = ok(await fc.v1.crawlUrl(site.url, { limit: 8 }, 1));
    assert.equal(res.status, 'completed');
    assert.equal(res.completed, 8);
    assert.equal(res.total, 8);
    assertDocuments(site, res.data as Document[], 8);
    assert.equal(res.data[0]!.metadata?.sourceURL, `${site.url}/`);
  });

  // The v1 SDK sends `Content-Type: application/json` with an empty body on every DELETE.
  test('checkCrawlErrors (sent as DELETE) lists the failed URLs', async (t) => {
    const { site, fc } = await setup(t);
    const started = ok(await fc.v1.asyncCrawlUrl(`${site.url}/broken/`, { ignoreSitemap: true }));
    const done = ok(await until(async () => ok(await fc.v1.checkCrawlStatus(started.id!)), over));
    assert.equal(done.status, 'completed');
    const errs = await fc.v1.checkCrawlErrors(started.id!);
    assert.ok('errors' in errs, JSON.stringify(errs));
    assert.deepEqual(urlsOf(errs), [`${site.url}/broken/logo.png`]);
    assert.deepEqual(errs.robotsBlocked, []);
    await assert.rejects(fc.v1.checkCrawlErrors(UNKNOWN_ID), v1Status(500, /404/));
  });

  test('cancelCrawl stops a running crawl', async (t) => {
    const { site, fc } = await setup(t, { site: { pages: 63, delayMs: 300 } });
    const started = ok(await fc.v1.asyncCrawlUrl(site.url, { limit: 60 }));
    const cancelled = await fc.v1.cancelCrawl(started.id!);
    assert.equal((cancelled as { status?: string }).status, 'cancelled');
    const after = ok(await fc.v1.checkCrawlStatus(started.id!));
    assert.equal(after.status, 'cancelled');
    assert.ok(after.completed < 60);
  });

  test('checkCrawlStatus: an unknown id is an error (the SDK rewraps the 404 as 500)', async (t) => {
    const { fc } = await setup(t);
    await assert.rejects(fc.v1.checkCrawlStatus(UNKNOWN_ID), v1Status(500, /404/));
    await assert.rejects(fc.v1.checkBatchScrapeStatus(UNKNOWN_ID), v1Status(500, /404/));
    await assert.rejects(fc.v1.checkGenerateLLMsTextStatus(UNKNOWN_ID), v1Status(500, /not found/));
  });

  test('batchScrapeUrls completes (the SDK polls /v1/crawl/:id with the batch id)', async (t) => {
    const { site, fc } = await setup(t);
    const urls = [`${site.url}/docs/a`, `${site.url}/docs/b`];
    const res = ok(await fc.v1.batchScrapeUrls(urls, { formats: ['markdown'] }, 1));
    assert.equal(res.status, 'completed');
    assert.equal(res.completed, 2);
    assert.deepEqual(res.data.map((d) => d.metadata?.sourceURL).sort(), urls);
    assert.ok(res.data.every((d) => /a page of the generated test site/.test(d.markdown ?? '')));
  });

  test('asyncBatchScrapeUrls + checkBatchScrapeErrors (sent as DELETE)', async (t) => {
    const { site, fc } = await setup(t);
    const png = `${site.url}/broken/logo.png`;
    const started = ok(
      await fc.v1.asyncBatchScrapeUrls([png, `${site.url}/broken/ok`], { formats: ['markdown'] }),
    );
    assert.equal(started.invalidURLs, undefined, 'v1 lists invalid URLs only when asked to ignore them');
    const done = ok(await until(async () => ok(await fc.v1.checkBatchScrapeStatus(started.id!)), over));
    assert.equal(done.status, 'completed');
    assert.equal(done.data.length, 1);
    const errs = await fc.v1.checkBatchScrapeErrors(started.id!);
    assert.ok('errors' in errs, JSON.stringify(errs));
    assert.deepEqual(urlsOf(errs), [png]);
  });

  test('extract runs on the server LLM and returns its object', async (t) => {
    const { site, fc, llm } = await setup(t, { llm: true });
    llm.reply = () => ({ text: JSON.stringify(ANSWER) });
    const res = ok(
      await fc.v1.extract([`${site.url}/`], { prompt: 'The title and link count', schema: SCHEMA }),
    );
    assert.deepEqual(res.data, ANSWER);
    assert.equal(res.error, undefined);
    assert.match(JSON.stringify(llm.requests[0]!.body), /The title and link count/);
  });

  test('generateLLMsText returns the llms.txt', async (t) => {
    const { site, fc } = await setup(t);
    const res = ok(await fc.v1.generateLLMsText(site.url, { maxUrls: 3 }));
    assert.equal(res.status, 'completed');
    assert.ok(!('error' in res), 'no error key on success');
    const text = res.data.llmstxt;
    assert.match(text, /^# Home\n/);
    const entries = text.split('\n').filter((l) => l.startsWith('- ['));
    assert.ok(entries.length >= 1 && entries.length <= 3, text);
    assert.ok(entries.every((l) => l.includes(site.url)));
    assert.equal(res.data.llmsfulltxt, undefined, 'full text only with showFullText');
  });

  test('bad input: FirecrawlError with status 400', async (t) => {
    const { site, fc } = await setup(t);
    await assert.rejects(
      fc.v1.crawlUrl(site.url, { scrapeOptions: { formats: ['json'] } }, 1),
      v1Status(400, /formats\[0\]/),
    );
    await assert.rejects(fc.v1.asyncCrawlUrl(site.url, { excludePaths: ['(unclosed'] }), v1Status(400));
    // v1 refuses an invalid URL in a batch unless ignoreInvalidURLs is set.
    await assert.rejects(
      fc.v1.asyncBatchScrapeUrls([`${site.url}/`, 'not a url'], {}),
      v1Status(400, /urls\[1\]/),
    );
    await assert.rejects(fc.v1.asyncGenerateLLMsText('', {}), v1Status(400));
    const lenient = ok(
      await fc.v1.asyncBatchScrapeUrls([`${site.url}/`, 'not a url'], {}, undefined, undefined, true),
    );
    assert.deepEqual(lenient.invalidURLs, ['not a url']);
  });
});

describe('Firecrawl SDKs with API_KEYS set', () => {
  test('the Bearer key of both clients is accepted (also on `next` pages); a wrong key is a 401', async (t) => {
    const { site, svc } = await setup(t, { env: { API_KEYS: 'sdk-key' } });
    const fc = new Firecrawl({ apiKey: 'sdk-key', apiUrl: svc.url });
    const job = await fc.crawl(site.url, { limit: 3, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    assert.equal(job.data.length, 3);
    const v1 = new FirecrawlAppV1({ apiKey: 'sdk-key', apiUrl: svc.url });
    const first = ok(await v1.checkCrawlStatus(job.id, false, undefined, 0, 1));
    assert.equal(first.data.length, 1);
    const second = ok(await v1.checkCrawlStatus(job.id, false, first.next));
    assert.equal(second.data.length, 1);
    const wrong = new Firecrawl({ apiKey: 'nope', apiUrl: svc.url });
    await assert.rejects(wrong.getCrawlStatus(job.id), sdkStatus(401));
    await assert.rejects(wrong.startCrawl(site.url, { limit: 1 }), sdkStatus(401));
    await assert.rejects(wrong.v1.asyncCrawlUrl(site.url, { limit: 1 }), v1Status(401));
    await assert.rejects(wrong.v1.checkCrawlStatus(job.id), v1Status(500, /401/));
  });
});
