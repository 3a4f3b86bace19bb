import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl, { SdkError } from '@mendable/firecrawl-js';
import { startBrandSite } from '../fixtures/sites/brand-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { site, startService } from '../helpers.js';
import type { Service } from '../helpers.js';

/**
 * Firecrawl's request checks as a Firecrawl program meets them: its 400 shape (`error` and `details`), the
 * waitFor/timeout bound, the underscore fields it accepts, v1's start depth against `maxDepth` and `parsers`.
 * The real SDK where it passes a request through unchecked; raw POSTs where the SDK drops or checks fields.
 */

type Json = Record<string, unknown>;
type Detail = { code: string; path: (string | number)[]; message: string };

const WAIT_FOR = 'waitFor must not exceed half of timeout';
const DEPTH = 'URL depth exceeds the specified maxDepth';
const OCR = 'parsers[0].mode: ocr is not available: this server has no OCR; use fast or auto';

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const s = await site(t);
  const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  return { s, svc, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) };
}

/** A 400 in Firecrawl's shape: `error` as given and the first detail's code and path. */
async function badRequest(svc: Service, path: string, body: Json, error: string, detail: Partial<Detail>) {
  const { status, json } = await svc.post(path, body);
  const context = `${path} ${JSON.stringify(body)}: ${JSON.stringify(json)}`;
  assert.equal(status, 400, context);
  assert.equal(json.success, false, context);
  assert.equal(json.code, 'BAD_REQUEST', context);
  assert.equal(json.error, error, context);
  const details = json.details as Detail[];
  assert.ok(Array.isArray(details) && details.length > 0, context);
  for (const [key, value] of Object.entries(detail))
    assert.deepEqual(details[0]![key as keyof Detail], value, context);
  return details;
}

/** An assert.rejects validator: the v2 SDK's SdkError, 400, with this message and first detail. */
const sdkBadRequest = (message: string, detail: Partial<Detail>) => (err: unknown) => {
  assert.ok(err instanceof SdkError, String(err));
  assert.equal(err.status, 400, err.message);
  assert.equal(err.message, message);
  assert.equal(err.code, 'BAD_REQUEST');
  const first = (err.details as Detail[])[0]!;
  for (const [key, value] of Object.entries(detail)) assert.deepEqual(first[key as keyof Detail], value);
  return true;
};

describe("Firecrawl's 400 shape", () => {
  test('a wrong type is "Bad Request" with details; an unknown field keeps its sentence; /api/v1 is unchanged', async (t) => {
    const { s, svc } = await setup(t);
    const url = `${s.url}/shop`;
    for (const api of ['v1', 'v2']) {
      await badRequest(svc, `/${api}/scrape`, { url, timeout: '1000' }, 'Bad Request', {
        code: 'invalid_type',
        path: ['timeout'],
        message: 'timeout must be integer',
      });
      await badRequest(
        svc,
        `/${api}/scrape`,
        { url, onlyMaincontent: true },
        "unknown field 'onlyMaincontent'",
        {
          code: 'unrecognized_keys',
        },
      );
    }
    const native = await svc.post('/api/v1/scrape', { url, timeout: '1000' });
    assert.equal(native.status, 400);
    assert.deepEqual(native.json, { success: false, code: 'BAD_REQUEST', error: 'timeout must be integer' });
    assert.deepEqual(s.requests, [], 'nothing was fetched');
  });
});

describe('1. waitFor above half of timeout', () => {
  test('v2: scrape (SDK), batch and crawl scrapeOptions are 400s with the message at ["waitFor"]', async (t) => {
    const { s, svc, fc } = await setup(t);
    const url = `${s.url}/shop`;
    for (const [waitFor, timeout] of [
      [8000, 15000],
      [15000, 15000],
      [20000, 15000],
    ]) {
      await assert.rejects(
        fc.scrape(url, { waitFor, timeout }),
        sdkBadRequest(WAIT_FOR, { code: 'custom', path: ['waitFor'], message: WAIT_FOR }),
      );
    }
    await badRequest(svc, '/v2/batch/scrape', { urls: [url], waitFor: 8000, timeout: 15000 }, WAIT_FOR, {
      path: ['waitFor'],
    });
    const crawl = { url, scrapeOptions: { waitFor: 8000, timeout: 15000 } };
    await badRequest(svc, '/v2/crawl', crawl, WAIT_FOR, { path: ['scrapeOptions', 'waitFor'] });
    await assert.rejects(
      fc.startCrawl(url, { scrapeOptions: { waitFor: 8000, timeout: 15000 } }),
      sdkBadRequest(WAIT_FOR, { path: ['scrapeOptions', 'waitFor'] }),
    );
    assert.deepEqual(s.requests, [], 'nothing was fetched');
  });

  test("v1: a scrape without timeout counts v1's 30 s default; batch and crawl bound a sent timeout", async (t) => {
    const { s, svc, fc } = await setup(t);
    const url = `${s.url}/shop`;
    await assert.rejects(fc.v1.scrapeUrl(url, { waitFor: 20000 }), (err: unknown) => {
      const e = err as { statusCode?: number; message: string };
      assert.equal(e.statusCode, 400, e.message);
      assert.match(e.message, new RegExp(WAIT_FOR));
      return true;
    });
    await badRequest(svc, '/v1/scrape', { url, waitFor: 8000, timeout: 15000 }, WAIT_FOR, {
      code: 'custom',
      path: ['waitFor'],
    });
    await badRequest(svc, '/v1/batch/scrape', { urls: [url], waitFor: 8000, timeout: 15000 }, WAIT_FOR, {
      path: ['waitFor'],
    });
    const crawl = { url, scrapeOptions: { waitFor: 20000, timeout: 15000 } };
    await badRequest(svc, '/v1/crawl', crawl, WAIT_FOR, { path: ['scrapeOptions', 'waitFor'] });
    assert.deepEqual(s.requests, [], 'nothing was fetched');
  });
});

describe('2. underscore fields Firecrawl accepts', () => {
  test('scrape: __experimental_omce, __experimental_omceDomain and the rest answer the page with a warning (v1, v2)', async (t) => {
    const { s, svc, fc } = await setup(t);
    const url = `${s.url}/shop`;
    const doc = await fc.scrape(url, { __experimental_omceDomain: 'fake-domain.com' } as never);
    assert.ok(doc.markdown, 'the SDK gets the page');
    const v2 = await svc.post('/v2/scrape', {
      url,
      __experimental_omce: true,
      __experimental_omceDomain: 'fake-domain.com',
      __searchPreviewToken: 'x',
      __forceFirePDF: true,
      __experimental_engpicker: true,
    });
    assert.equal(v2.status, 200, JSON.stringify(v2.json));
    const warning = String(v2.json.warning);
    for (const field of [
      '__experimental_omce',
      '__experimental_omceDomain',
      '__searchPreviewToken',
      '__forceFirePDF',
    ])
      assert.match(warning, new RegExp(`${field}\\b`));
    const v1 = await fc.v1.scrapeUrl(url, {
      __experimental_omceDomain: 'fake-domain.com',
      __experimental_cache: true,
    } as never);
    assert.equal(v1.success, true);
    assert.match(
      String((v1 as { warning?: string }).warning),
      /__experimental_omceDomain, __experimental_cache/,
    );
    const batch = await svc.post('/v1/batch/scrape', { urls: [url], __experimental_omce: true });
    assert.equal(batch.status, 200, JSON.stringify(batch.json));
  });

  test('extract: __experimental_* fields start the job with a warning (v1, v2); llms.txt __experimental_stream', async (t) => {
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const { s, svc } = await setup(t, { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' });
    const experimental = {
      __experimental_streamSteps: true,
      __experimental_llmUsage: true,
      __experimental_showSources: true,
      __experimental_showCostTracking: true,
      __experimental_cacheKey: 'k',
      __experimental_cacheMode: 'load',
    };
    for (const api of ['v1', 'v2']) {
      const res = await svc.post(`/${api}/extract`, {
        urls: [`${s.url}/shop`],
        prompt: 'x',
        ...experimental,
      });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      for (const field of Object.keys(experimental))
        assert.match(String(res.json.warning), new RegExp(field));
    }
    // Extract's scrapeOptions meet the waitFor bound of behaviour 1 too (extract needs the LLM to get there).
    const waits = { urls: [`${s.url}/shop`], prompt: 'x', scrapeOptions: { waitFor: 8000, timeout: 15000 } };
    await badRequest(svc, '/v2/extract', waits, WAIT_FOR, { path: ['scrapeOptions', 'waitFor'] });
    const llmstxt = await svc.post('/v1/llmstxt', { url: `${s.url}/shop`, __experimental_stream: true });
    assert.equal(llmstxt.status, 200, JSON.stringify(llmstxt.json));
    assert.match(String(llmstxt.json.warning), /__experimental_stream/);
  });
});

describe('5. v1 crawl start URL deeper than maxDepth', () => {
  test('a 400 "URL depth exceeds the specified maxDepth" at ["url"]; index pages do not count; v2 has no such bound', async (t) => {
    const { s, svc, fc } = await setup(t);
    const deep = `${s.url}/blog/category/deep/nested/path`;
    await assert.rejects(fc.v1.asyncCrawlUrl(deep, { maxDepth: 2 }), (err: unknown) => {
      const e = err as { statusCode?: number; message: string };
      assert.equal(e.statusCode, 400, e.message);
      assert.match(e.message, new RegExp(DEPTH));
      return true;
    });
    await badRequest(svc, '/v1/crawl', { url: deep, maxDepth: 2 }, DEPTH, {
      code: 'custom',
      path: ['url'],
      message: DEPTH,
    });
    const eleven = `${s.url}/${Array.from({ length: 11 }, (_, i) => `s${i}`).join('/')}`;
    await badRequest(svc, '/v1/crawl', { url: eleven }, DEPTH, { path: ['url'] });
    const index = await svc.post('/v1/crawl', { url: `${s.url}/blog/a/index.html`, maxDepth: 2, limit: 1 });
    assert.equal(index.status, 200, JSON.stringify(index.json));
    const v2 = await svc.post('/v2/crawl', { url: eleven, limit: 1 });
    assert.equal(v2.status, 200, JSON.stringify(v2.json));
  });
});

describe('9. parsers', () => {
  test('an invalid parser is "Bad Request" with details at ["parsers", i] (v1, v2, SDK, crawl scrapeOptions)', async (t) => {
    const { s, svc, fc } = await setup(t);
    const url = `${s.url}/shop`;
    const cases: [unknown, (string | number)[], string][] = [
      [['invalid-parser'], ['parsers', 0], 'invalid_union'],
      ['pdf', ['parsers'], 'invalid_type'],
      [{ pdf: true }, ['parsers'], 'invalid_type'],
      [['pdf', { type: 'pdf', extra: 1 }], ['parsers', 1], 'invalid_union'],
      [[{ type: 'pdf', mode: 'slow' }], ['parsers', 0], 'invalid_union'],
      [[{ type: 'pdf', maxPages: 10001 }], ['parsers', 0], 'invalid_union'],
      [[{ type: 'image', maxPages: 1 }], ['parsers', 0], 'invalid_union'],
    ];
    for (const api of ['v1', 'v2']) {
      for (const [parsers, path, code] of cases)
        await badRequest(svc, `/${api}/scrape`, { url, parsers }, 'Bad Request', { path, code });
    }
    await assert.rejects(
      fc.scrape(url, { parsers: ['invalid-parser'] }),
      sdkBadRequest('Bad Request', { path: ['parsers', 0], code: 'invalid_union' }),
    );
    const crawl = { url, scrapeOptions: { parsers: ['invalid-parser'] } };
    await badRequest(svc, '/v2/crawl', crawl, 'Bad Request', { path: ['scrapeOptions', 'parsers', 0] });
    assert.deepEqual(s.requests, [], 'nothing was fetched');
  });

  test('"image" is accepted with a warning; PDF mode fast and auto read the text layer; ocr is a clear 400', async (t) => {
    const brand = await startBrandSite();
    t.after(() => brand.close());
    const { s, svc, fc } = await setup(t);
    for (const parsers of [['pdf', 'image'], [{ type: 'image' }]]) {
      const res = await svc.post('/v2/scrape', { url: `${s.url}/shop`, parsers });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.match(String(res.json.warning), /parsers "image"/);
    }
    const pdf = `${brand.url}/report.pdf`;
    for (const mode of ['fast', 'auto'] as const) {
      const doc = await fc.scrape(pdf, { parsers: [{ type: 'pdf', mode }] });
      assert.match(doc.markdown ?? '', /Outlook/, mode);
    }
    for (const api of ['v1', 'v2'])
      await badRequest(svc, `/${api}/scrape`, { url: pdf, parsers: [{ type: 'pdf', mode: 'ocr' }] }, OCR, {
        code: 'custom',
        path: ['parsers', 0, 'mode'],
      });
    await assert.rejects(
      fc.scrape(pdf, { parsers: [{ type: 'pdf', mode: 'ocr' }] }),
      sdkBadRequest(OCR, { path: ['parsers', 0, 'mode'] }),
    );
  });
});
