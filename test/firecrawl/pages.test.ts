import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import Firecrawl, { SdkError } from '@mendable/firecrawl-js';
import type { Document, SearchResultWeb } from '@mendable/firecrawl-js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { startService } from '../helpers.js';

/**
 * The real Firecrawl SDK (v2 client and `.v1`) calling scrape, map, search and the team endpoints at the root
 * of the running service, against the generated site on loopback and a SearXNG stub.
 */

async function setup(t: TestContext, o: { llm?: boolean } = {}) {
  const site = await startCrawlSite();
  t.after(() => site.close());
  const llm = o.llm ? await startLlmStub() : null;
  if (llm) {
    t.after(() => llm.close());
    // Summaries are prose; extraction answers the page's number as JSON.
    llm.reply = (r) => {
      const text = JSON.stringify(r.body);
      if (/summarize/.test(text)) return { text: 'A generated page that links to two others.' };
      const n = /This is Page (\d+)/.exec(text)?.[1] ?? '-1';
      return { text: JSON.stringify({ page: Number(n) }) };
    };
  }
  const search = await startSearchStub();
  t.after(() => search.close());
  search.hits = [
    { title: 'Generated zero', url: `${site.url}/gen/0`, snippet: 'The first generated page.' },
    { title: 'Generated one', url: `${site.url}/gen/1`, snippet: 'The second generated page.' },
    { title: 'Docs', url: `${site.url}/docs/a`, snippet: 'Documentation.' },
  ];
  const svc = await startService(t, {
    resolver: fixtureResolver,
    env: {
      CRAWL_MIN_DELAY_MS: '0',
      SEARXNG_URL: `${search.url}/searxng`,
      ...(llm ? { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' } : {}),
    },
  });
  return { site, search, svc, llm: llm!, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) };
}

const sdkStatus = (status: number, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof SdkError, String(err));
  assert.equal(err.status, status, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

const isDocument = (r: SearchResultWeb | Document): r is Document => 'markdown' in r;

describe('Firecrawl SDK v2: scrape, map, search, team', () => {
  test('scrape: formats and Firecrawl metadata (sourceURL, url, statusCode, contentType, scrapeId)', async (t) => {
    const { site, fc } = await setup(t);
    const doc = await fc.scrape(`${site.url}/gen/0`, { formats: ['markdown', 'links', 'html'] });
    assert.match(doc.markdown ?? '', /This is Page 0/);
    assert.ok(
      doc.links?.some((l) => l.endsWith('/gen/1')),
      JSON.stringify(doc.links),
    );
    assert.match(doc.html ?? '', /<p>This is Page 0/);
    const m = doc.metadata!;
    assert.equal(m.sourceURL, `${site.url}/gen/0`);
    assert.equal(m.url, `${site.url}/gen/0`);
    assert.equal(m.statusCode, 200);
    assert.match(String(m.contentType), /text\/html/);
    assert.match(String(m.scrapeId), /^[0-9a-f-]{36}$/);
  });

  test('scrape: a target that cannot be reached is one 500 (not a 502 the SDK would retry three times)', async (t) => {
    const { site, fc } = await setup(t);
    const before = site.hits.length;
    await assert.rejects(fc.scrape('http://127.0.0.1:1/nothing-listens-here'), sdkStatus(500));
    await assert.rejects(
      fc.scrape(`${site.url}/gen/0`, { formats: ['nope' as 'markdown'] }),
      sdkStatus(400, /formats\[0\]/),
    );
    assert.equal(site.hits.length, before, 'bad input fetches nothing');
  });

  test('map: links with titles of the pages read; sitemap only / skip', async (t) => {
    const { site, fc } = await setup(t);
    const all = await fc.map(site.url, { limit: 200 });
    const urls = all.links.map((l) => l.url);
    assert.ok(urls.includes(`${site.url}/orphan/1`), 'sitemap pages are in by default');
    assert.ok(urls.includes(`${site.url}/gen/0`));
    const start = all.links.find((l) => l.url === `${site.url}/`);
    assert.ok(start?.title, 'the start page was read: it has its title');

    const only = await fc.map(site.url, { sitemap: 'only', limit: 200 });
    assert.ok(only.links.some((l) => l.url === `${site.url}/orphan/1`));
    assert.ok(!only.links.some((l) => l.url === `${site.url}/blog/x`), 'no page is read for links');

    const skip = await fc.map(site.url, { sitemap: 'skip', limit: 200 });
    assert.ok(!skip.links.some((l) => l.url.includes('/orphan/')), 'no sitemap');
    assert.ok(skip.links.some((l) => l.url === `${site.url}/blog/x`));

    const searched = await fc.map(site.url, { search: 'orphan', limit: 2 });
    assert.equal(searched.links.length, 2);
    assert.ok(searched.links.every((l) => l.url.includes('/orphan/')));
  });

  test('search: web results, scraped when formats are asked; what the provider cannot do is a warning', async (t) => {
    const { site, fc } = await setup(t);
    const plain = await fc.search('generated pages', { limit: 2 });
    assert.equal(plain.web?.length, 2);
    assert.deepEqual(plain.web![0], {
      url: `${site.url}/gen/0`,
      title: 'Generated zero',
      description: 'The first generated page.',
    });
    assert.equal(plain.warning, undefined);

    const scraped = await fc.search('generated pages', {
      limit: 3,
      sources: ['web', 'news'],
      tbs: 'qdr:d',
      highlights: true,
      location: 'Germany',
      scrapeOptions: { formats: ['markdown'] },
    });
    assert.equal(scraped.web?.length, 3);
    const first = scraped.web![0]!;
    assert.ok(isDocument(first));
    assert.match(first.markdown ?? '', /This is Page 0/);
    assert.equal(first.metadata?.sourceURL, `${site.url}/gen/0`);
    assert.match(scraped.warning ?? '', /sources \(news/);
    assert.match(scraped.warning ?? '', /tbs/);
    assert.match(scraped.warning ?? '', /location/);
    assert.match(scraped.warning ?? '', /highlights/);

    const filtered = await fc.search('generated pages', { includeDomains: ['example.org'] });
    assert.deepEqual(filtered.web ?? [], [], 'includeDomains keeps only those hosts');
  });

  test('team: queue status from the job engine, credits and tokens not counted, concurrency', async (t) => {
    const { site, fc } = await setup(t);
    const q0 = await fc.getQueueStatus();
    assert.equal(q0.success, true);
    assert.equal(q0.jobsInQueue, 0);
    assert.equal(q0.mostRecentSuccess, null);
    assert.ok(q0.maxConcurrency >= 1);
    const crawled = await fc.crawl(`${site.url}/gen/0`, { limit: 2, pollInterval: 1 });
    assert.equal(crawled.status, 'completed');
    const q1 = await fc.getQueueStatus();
    assert.ok(q1.mostRecentSuccess && !Number.isNaN(Date.parse(q1.mostRecentSuccess)), JSON.stringify(q1));
    const credits = await fc.getCreditUsage();
    assert.ok(credits.remainingCredits > 1_000_000);
    const tokens = await fc.getTokenUsage();
    assert.ok(tokens.remainingTokens > 1_000_000);
    const c = await fc.getConcurrency();
    assert.equal(c.concurrency, 0);
    assert.ok(c.maxConcurrency >= 1);
  });
});

describe('Firecrawl formats written by the server LLM, and screenshots', () => {
  const schema = { type: 'object', properties: { page: { type: 'number' } }, required: ['page'] };

  test('v2 scrape: json (schema) and summary; Markdown read only for the LLM is left out', async (t) => {
    const { site, llm, fc } = await setup(t, { llm: true });
    const doc = await fc.scrape(`${site.url}/gen/3`, {
      formats: [{ type: 'json', schema, prompt: 'Which page is this?' }, 'summary'],
    });
    assert.deepEqual(doc.json, { page: 3 });
    assert.equal(doc.summary, 'A generated page that links to two others.');
    assert.equal(doc.markdown, undefined);
    assert.equal(llm.requests.length, 2);
    assert.equal(llm.requests[0]!.body.model, 'stub-model');
  });

  test('v1 scrapeUrl: json with jsonOptions, and the legacy extract format', async (t) => {
    const { site, fc } = await setup(t, { llm: true });
    const res = (await fc.v1.scrapeUrl(`${site.url}/gen/4`, {
      formats: ['markdown', 'json'],
      jsonOptions: { prompt: 'Which page is this?' },
    })) as { json?: unknown; markdown?: string };
    assert.deepEqual(res.json, { page: 4 });
    assert.match(res.markdown ?? '', /This is Page 4/);
    const legacy = (await fc.v1.scrapeUrl(`${site.url}/gen/5`, {
      formats: ['extract'],
      extract: { schema } as never, // the SDK converts Zod schemas and passes JSON Schema through
    })) as { extract?: unknown };
    assert.deepEqual(legacy.extract, { page: 5 });
  });

  test('an answer that breaks the schema keeps the page and says why in warning', async (t) => {
    const { site, llm, fc } = await setup(t, { llm: true });
    llm.reply = () => ({ text: '{"page":"three"}' });
    const doc = await fc.scrape(`${site.url}/gen/3`, { formats: ['markdown', { type: 'json', schema }] });
    assert.match(doc.markdown ?? '', /This is Page 3/);
    assert.match(String(doc.warning), /json does not follow its schema/);
  });

  test('without a server LLM, json and summary are a 400 naming the format', async (t) => {
    const { site, fc } = await setup(t);
    await assert.rejects(
      fc.scrape(`${site.url}/gen/0`, { formats: ['summary'] }),
      sdkStatus(400, /formats\[0\].*OPENAI_BASE_URL/),
    );
  });

  test('a crawl job writes json for every page', async (t) => {
    const { site, fc } = await setup(t, { llm: true });
    const job = await fc.crawl(`${site.url}/gen/0`, {
      limit: 3,
      crawlEntireDomain: true,
      sitemap: 'skip',
      pollInterval: 1,
      scrapeOptions: { formats: [{ type: 'json', schema }] },
    });
    assert.equal(job.status, 'completed');
    const pages = job.data.map((d) => (d.json as { page: number }).page).sort();
    assert.deepEqual(pages, [0, 1, 2]);
    assert.ok(job.data.every((d) => d.markdown === undefined));
  });

  test('screenshot and full-page screenshot (browser engine)', async (t) => {
    const { site: named, fc } = await setup(t);
    const site = { url: `http://127.0.0.1:${named.port}` }; // Chromium resolves names itself
    const shot = await fc.scrape(`${site.url}/gen/0`, { formats: ['screenshot'] });
    const full = await fc.scrape(`${site.url}/gen/0`, { formats: [{ type: 'screenshot', fullPage: true }] });
    for (const d of [shot, full]) assert.match(String(d.screenshot), /^data:image\/png;base64,/);
    const v1 = (await fc.v1.scrapeUrl(`${site.url}/gen/0`, { formats: ['screenshot@fullPage'] })) as {
      screenshot?: string;
    };
    assert.match(String(v1.screenshot), /^data:image\/png;base64,/);
  });
});

describe('Firecrawl actions, mobile and languages (browser engine)', () => {
  test('every action type runs in order; screenshots, scrapes, script results and PDFs come back in actions', async (t) => {
    const { site: named, fc } = await setup(t);
    const url = `http://127.0.0.1:${named.port}/gen/0`; // Chromium resolves names itself
    const doc = await fc.scrape(url, {
      formats: ['markdown'],
      actions: [
        { type: 'wait', milliseconds: 10 },
        { type: 'wait', selector: 'main' },
        {
          type: 'executeJavascript',
          script: "document.body.insertAdjacentHTML('beforeend', '<input id=q>')",
        },
        { type: 'click', selector: '#q' },
        { type: 'write', text: 'typed words' },
        { type: 'press', key: 'End' },
        { type: 'scroll', direction: 'down' },
        { type: 'screenshot', fullPage: true },
        { type: 'executeJavascript', script: "return document.querySelector('#q').value" },
        { type: 'scrape' },
        { type: 'pdf' },
      ],
    });
    const actions = doc.actions as {
      screenshots: string[];
      scrapes: { url: string; html: string }[];
      javascriptReturns: { type: string; value: unknown }[];
      pdfs: string[];
    };
    assert.equal(actions.screenshots.length, 1);
    assert.match(actions.screenshots[0]!, /^data:image\/png;base64,/);
    assert.deepEqual(actions.javascriptReturns.at(-1), { type: 'string', value: 'typed words' });
    assert.equal(actions.scrapes[0]!.url, url);
    assert.match(actions.scrapes[0]!.html, /<input id="q"/);
    assert.match(actions.pdfs[0]!, /^data:application\/pdf;base64,JVBER/);
    assert.match(doc.markdown ?? '', /This is Page 0/);
  });

  test('mobile emulates a phone; location.languages sets Accept-Language and the browser locale', async (t) => {
    const { site: named, fc } = await setup(t);
    const url = `http://127.0.0.1:${named.port}/gen/0`;
    const doc = await fc.scrape(url, {
      mobile: true,
      location: { languages: ['de-DE', 'en'] },
      actions: [
        {
          type: 'executeJavascript',
          script: 'return [navigator.userAgent, screen.width, navigator.language]',
        },
      ],
    });
    const [ua, width, language] = (doc.actions as { javascriptReturns: { value: unknown[] }[] })
      .javascriptReturns[0]!.value as [string, number, string];
    assert.match(ua, /Mobile/);
    assert.equal(width, 390);
    assert.equal(language, 'de-DE');
  });

  test('actions the server cannot honour are a 400 naming the field', async (t) => {
    const { site, fc } = await setup(t);
    await assert.rejects(
      fc.scrape(`${site.url}/gen/0`, { actions: [{ type: 'screenshot', quality: 50 }] }),
      sdkStatus(400, /actions\[0\]\.quality/),
    );
    await assert.rejects(
      fc.scrape(`${site.url}/gen/0`, { actions: [{ type: 'wait' } as never] }),
      sdkStatus(400, /actions\[0\]/),
    );
  });
});

/** A page whose text and status the test sets between scrapes. */
async function changingPage(t: TestContext) {
  const state = { text: 'The price is 10 euros.', status: 200 };
  const server = createServer((_req, res) => {
    res.writeHead(state.status, { 'content-type': 'text/html' });
    res.end(
      `<html><head><title>Price</title></head><body><main><h1>Price</h1><p>${state.text}</p></main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/price` };
}

describe('Firecrawl cache (maxAge) and changeTracking', () => {
  test('v2 answers a page scraped in the last two days from the cache; maxAge 0 and storeInCache false fetch', async (t) => {
    const { site, fc } = await setup(t);
    const url = `${site.url}/gen/7`;
    const fetches = () => site.hits.filter((h) => h.path === '/gen/7').length;
    const first = await fc.scrape(url);
    assert.equal(first.metadata?.cacheState, 'miss');
    const second = await fc.scrape(url);
    assert.equal(second.metadata?.cacheState, 'hit');
    assert.ok(second.metadata?.cachedAt);
    assert.notEqual(second.metadata?.scrapeId, first.metadata?.scrapeId);
    assert.equal(second.markdown, first.markdown);
    assert.equal(fetches(), 1, 'the hit cost no fetch');
    await fc.scrape(url, { maxAge: 0 });
    assert.equal(fetches(), 2);
    // Other options are another cache entry.
    await fc.scrape(url, { formats: ['html'] });
    assert.equal(fetches(), 3);
    // v1's default maxAge is 0: always fetched.
    await fc.v1.scrapeUrl(url, {});
    assert.equal(fetches(), 4);
    const other = `${site.url}/gen/8`;
    await fc.scrape(other, { storeInCache: false });
    assert.equal((await fc.scrape(other)).metadata?.cacheState, 'miss');
  });

  test('changeTracking: new, same, changed with a git diff, removed; per tag', async (t) => {
    const { fc } = await setup(t);
    const page = await changingPage(t);
    const track = { type: 'changeTracking' as const, modes: ['git-diff' as const] };
    const first = await fc.scrape(page.url, { formats: ['markdown', track] });
    const ct1 = first.changeTracking as { changeStatus: string; previousScrapeAt: string | null };
    assert.equal(ct1.changeStatus, 'new');
    assert.equal(ct1.previousScrapeAt, null);
    const same = (await fc.scrape(page.url, { formats: ['markdown', track] })).changeTracking as {
      changeStatus: string;
      previousScrapeAt: string;
    };
    assert.equal(same.changeStatus, 'same');
    assert.ok(!Number.isNaN(Date.parse(same.previousScrapeAt)));
    page.state.text = 'The price is 12 euros.';
    const changed = (await fc.scrape(page.url, { formats: ['markdown', track] })).changeTracking as {
      changeStatus: string;
      diff: { text: string };
    };
    assert.equal(changed.changeStatus, 'changed');
    assert.match(changed.diff.text, /^-The price is 10 euros\.$/m);
    assert.match(changed.diff.text, /^\+The price is 12 euros\.$/m);
    const tagged = (await fc.scrape(page.url, { formats: ['markdown', { ...track, tag: 'other' }] }))
      .changeTracking as { changeStatus: string };
    assert.equal(tagged.changeStatus, 'new', 'another tag keeps its own versions');
    page.state.status = 404;
    const removed = (await fc.v1.scrapeUrl(page.url, {
      formats: ['markdown', 'changeTracking'],
      changeTrackingOptions: { modes: ['git-diff'] },
    })) as { changeTracking?: { changeStatus: string } };
    assert.equal(removed.changeTracking?.changeStatus, 'removed');
    await assert.rejects(
      fc.scrape(page.url, { formats: [{ type: 'changeTracking', modes: ['json'] }] }),
      sdkStatus(400, /modes/),
    );
  });
});

describe('Firecrawl SDK .v1: scrapeUrl, mapUrl, search', () => {
  test('scrapeUrl returns the document fields at the top level', async (t) => {
    const { site, fc } = await setup(t);
    const res = await fc.v1.scrapeUrl(`${site.url}/gen/0`, { formats: ['markdown'] });
    assert.equal(res.success, true);
    const doc = res as Extract<typeof res, { success: true }>;
    assert.match(doc.markdown ?? '', /This is Page 0/);
    assert.equal(doc.metadata?.statusCode, 200);
    assert.equal(doc.metadata?.sourceURL, `${site.url}/gen/0`);
  });

  test('mapUrl returns URLs as strings; sitemapOnly and ignoreSitemap', async (t) => {
    const { site, fc } = await setup(t);
    const res = await fc.v1.mapUrl(site.url, {});
    assert.equal(res.success, true);
    const links = (res as { links: string[] }).links;
    assert.ok(links.includes(`${site.url}/orphan/1`));
    const only = (await fc.v1.mapUrl(site.url, { sitemapOnly: true })) as { links: string[] };
    assert.ok(!only.links.includes(`${site.url}/blog/x`));
    const skip = (await fc.v1.mapUrl(site.url, { ignoreSitemap: true })) as { links: string[] };
    assert.ok(!skip.links.some((l) => l.includes('/orphan/')));
  });

  test('search sends lang, country and empty formats by default: plain results, no warning', async (t) => {
    const { site, search, fc } = await setup(t);
    const res = await fc.v1.search('generated pages', {});
    assert.equal(res.success, true);
    assert.equal(res.data.length, 3);
    assert.equal(res.data[0]!.url, `${site.url}/gen/0`);
    assert.equal(res.data[0]!.markdown, undefined, 'formats: [] scrapes nothing');
    assert.equal(res.warning, undefined);
    assert.equal(search.requests.at(-1)?.query.get('q'), 'generated pages');
    const scraped = await fc.v1.search('generated pages', {
      limit: 1,
      lang: 'de',
      scrapeOptions: { formats: ['markdown'] },
    });
    assert.equal(scraped.data.length, 1);
    assert.match(scraped.data[0]!.markdown ?? '', /This is Page 0/);
    assert.match(scraped.warning ?? '', /lang/);
  });
});
