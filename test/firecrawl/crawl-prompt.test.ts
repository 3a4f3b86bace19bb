import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl, { SdkError } from '@mendable/firecrawl-js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import type { LlmRequest } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';
import { call, json, over, poll } from '../jobs/http.js';
import type { Json } from '../jobs/http.js';

/**
 * Crawl options from a prompt: `POST /v2/crawl/params-preview` and `prompt` on a crawl start, with the server's
 * LLM played by the stub and the generated site on loopback.
 */

const MAX_PAGES = 50;

async function setup(t: TestContext, withLlm = true) {
  const site = await startCrawlSite();
  t.after(() => site.close());
  const llm = withLlm ? await startLlmStub() : null;
  if (llm) t.after(() => llm.close());
  const env: Record<string, string> = { CRAWL_MIN_DELAY_MS: '0', CRAWL_MAX_PAGES: String(MAX_PAGES) };
  if (llm) Object.assign(env, { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' });
  const svc = await startService(t, { resolver: fixtureResolver, env });
  const api = (p: string, method?: string, body?: unknown) => call(svc.url + p, method, body);
  return { site, svc, api, llm, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) };
}

/** The stub answers these crawl options (as the text of its one message). */
const answering = (options: object) => () => ({ text: JSON.stringify(options) });

/** The JSON Schema the server sent the LLM with its prompt. */
function schemaSent(request: LlmRequest): { properties: Record<string, { maximum?: number }> } {
  const format = request.body.response_format as { json_schema: { schema: never } };
  return format.json_schema.schema;
}

/** The paths of a finished crawl's documents. */
function pathsOf(status: Json): string[] {
  return (status.data as { metadata: { sourceURL: string } }[])
    .map((d) => new URL(d.metadata.sourceURL).pathname)
    .sort();
}

describe('POST /v2/crawl/params-preview', () => {
  test("answers the options the server's LLM derived, with the start URL, in Firecrawl's shape", async (t) => {
    const { site, api, llm } = await setup(t);
    llm!.reply = answering({ includePaths: ['^/docs/'], limit: 5, sitemap: 'skip', delay: null });
    const body = { url: site.url, prompt: 'Only the documentation, five pages, no sitemap' };
    const reply = json(await api('/v2/crawl/params-preview', 'POST', body));
    assert.deepEqual(reply, {
      success: true,
      data: { url: site.url, includePaths: ['^/docs/'], limit: 5, sitemap: 'skip' },
    });
    assert.equal(llm!.requests.length, 1);
    const sent = llm!.requests[0]!;
    assert.match(JSON.stringify(sent.body.messages), /Only the documentation, five pages/);
    assert.match(JSON.stringify(sent.body.messages), /site\.test/);
    const schema = schemaSent(sent);
    assert.equal(schema.properties.limit?.maximum, MAX_PAGES, "the server's bound is in the schema");
    assert.ok(schema.properties.includePaths && !('maxDepth' in schema.properties));
    assert.deepEqual(site.hits, [], 'nothing was fetched');
  });

  test('what the LLM answers that a crawl would refuse is dropped and named in `warning`', async (t) => {
    const { site, api, llm } = await setup(t);
    llm!.reply = answering({
      includePaths: ['^/docs/(?=a)'], // a lookahead: the linear-time engine cannot run it
      excludePaths: ['^/private/'],
      limit: MAX_PAGES + 1,
      delay: 'slowly',
      maxDepth: 3, // v1's field, not v2's
      colour: 'red',
      allowSubdomains: true,
    });
    const reply = json(await api('/v2/crawl/params-preview', 'POST', { url: site.url, prompt: 'x' }));
    assert.deepEqual(reply.data, { url: site.url, excludePaths: ['^/private/'], allowSubdomains: true });
    const warning = reply.warning as string;
    assert.match(warning, /includePaths\[0\]: lookahead/);
    assert.match(warning, new RegExp(`limit: must be <= ${MAX_PAGES} on this server`));
    assert.match(warning, /delay: /);
    assert.match(warning, /maxDepth: not a crawl option/);
    assert.match(warning, /colour: not a crawl option/);
  });

  test('an LLM that fails or answers no JSON object is LLM_FAILED (502), never a 500', async (t) => {
    const { site, api, llm } = await setup(t);
    for (const stubbed of [{ text: 'I would crawl the docs.' }, { text: '["^/docs/"]' }, { status: 500 }]) {
      llm!.reply = () => stubbed;
      const reply = json(await api('/v2/crawl/params-preview', 'POST', { url: site.url, prompt: 'x' }), 502);
      assert.equal(reply.code, 'LLM_FAILED', JSON.stringify(stubbed));
      assert.equal(reply.success, false);
    }
  });

  test('bad input is a 400 naming the field, before the LLM is asked', async (t) => {
    const { site, api, llm } = await setup(t);
    const cases: [object, RegExp][] = [
      [{ url: site.url, prompt: '' }, /prompt/],
      [{ url: site.url, prompt: 'p'.repeat(10_001) }, /prompt/],
      [{ url: 'ftp://site.test/', prompt: 'x' }, /^url scheme/],
      [{ url: site.url, prompt: 'x', limit: 5 }, /limit/],
    ];
    for (const [body, message] of cases) {
      const reply = json(await api('/v2/crawl/params-preview', 'POST', body), 400);
      assert.match(reply.error as string, message, JSON.stringify(body).slice(0, 200));
    }
    // A missing field is a wrong type to Firecrawl ("Bad Request"); the field is in the details.
    const missing = json(await api('/v2/crawl/params-preview', 'POST', { url: site.url }), 400);
    assert.equal(missing.error, 'Bad Request');
    assert.deepEqual((missing.details as { path: unknown[] }[])[0]!.path, ['prompt']);
    assert.equal(llm!.requests.length, 0);
  });

  test('without a server LLM: a 400 naming OPENAI_BASE_URL, here and on a crawl with a prompt', async (t) => {
    const { site, api } = await setup(t, false);
    for (const [route, body] of [
      ['/v2/crawl/params-preview', { url: site.url, prompt: 'docs only' }],
      ['/v2/crawl', { url: site.url, prompt: 'docs only' }],
      ['/v1/crawl', { url: site.url, prompt: 'docs only' }],
    ] as const) {
      const reply = json(await api(route, 'POST', body), 400);
      assert.match(reply.error as string, /^prompt: .*OPENAI_BASE_URL/, route);
    }
    assert.deepEqual(site.hits, [], 'nothing was fetched');
  });
});

describe('prompt on a crawl start', () => {
  test('the crawl runs with the derived options and its start answer reports them', async (t) => {
    const { site, svc, api, llm } = await setup(t);
    llm!.reply = answering({ includePaths: ['^/docs/'], crawlEntireDomain: true, sitemap: 'skip' });
    const started = json(await api('/v2/crawl', 'POST', { url: site.url, prompt: 'The docs section' }));
    assert.deepEqual(started.promptGeneratedOptions, {
      includePaths: ['^/docs/'],
      crawlEntireDomain: true,
      sitemap: 'skip',
    });
    assert.deepEqual(started.finalCrawlerOptions, {
      includePaths: ['^/docs/'],
      crawlEntireDomain: true,
      sitemap: 'skip',
    });
    const end = json(await poll(`${svc.url}/v2/crawl/${String(started.id)}`, over));
    assert.equal(end.status, 'completed');
    // The start page is crawled whatever the patterns (as Firecrawl does); the links it leads to are filtered.
    assert.deepEqual(pathsOf(end), ['/', '/docs/a', '/docs/b']);
    assert.equal(end.warning, undefined);
  });

  test('fields the caller set win over derived ones; dropped fields are named in the status warning', async (t) => {
    const { site, svc, api, llm } = await setup(t);
    llm!.reply = answering({
      includePaths: ['^/docs/'],
      limit: 40,
      crawlEntireDomain: true,
      sitemap: 'skip',
      excludePaths: ['(a)\\1'], // a backreference: refused by the linear-time engine
    });
    const body = { url: site.url, prompt: 'Docs', includePaths: ['^/gen/'], limit: 3 };
    const started = json(await api('/v2/crawl', 'POST', body));
    assert.deepEqual(started.finalCrawlerOptions, {
      includePaths: ['^/gen/'],
      limit: 3,
      crawlEntireDomain: true,
      sitemap: 'skip',
    });
    const end = json(await poll(`${svc.url}/v2/crawl/${String(started.id)}`, over));
    assert.equal(end.status, 'completed');
    const [start, ...followed] = pathsOf(end);
    assert.equal(start, '/');
    assert.equal(followed.length, 2);
    for (const path of followed) assert.match(path, /^\/gen\//);
    assert.match(end.warning as string, /excludePaths\[0\]: /);
  });

  test('v1: the derived options take v1 names, and an explicit v1 field keeps its v2 twin out', async (t) => {
    const { site, svc, api, llm } = await setup(t);
    llm!.reply = answering({ includePaths: ['^/docs/'], crawlEntireDomain: true, sitemap: 'skip' });
    const body = { url: `${site.url}/docs/`, prompt: 'Docs', allowBackwardLinks: false };
    const started = json(await api('/v1/crawl', 'POST', body));
    assert.deepEqual(started.finalCrawlerOptions, {
      includePaths: ['^/docs/'],
      allowBackwardLinks: false,
      ignoreSitemap: true,
    });
    const end = json(await poll(`${svc.url}/v1/crawl/${String(started.id)}`, over));
    assert.equal(end.status, 'completed');
    assert.deepEqual(pathsOf(end), ['/docs/', '/docs/a', '/docs/b']);
  });
});

describe('through the Firecrawl SDK', () => {
  test('crawlParamsPreview answers the derived options (and the warning)', async (t) => {
    const { site, fc, llm } = await setup(t);
    llm!.reply = answering({ includePaths: ['^/blog/'], limit: 10, colour: 'red' });
    const preview = await fc.crawlParamsPreview(site.url, 'The blog, ten pages');
    assert.equal(preview.url, site.url);
    assert.deepEqual(preview.includePaths, ['^/blog/']);
    assert.equal(preview.limit, 10);
    assert.match(String(preview.warning), /colour/);
  });

  test('crawl with a prompt crawls only the derived paths', async (t) => {
    const { site, fc, llm } = await setup(t);
    llm!.reply = answering({ includePaths: ['^/docs/'], crawlEntireDomain: true, sitemap: 'skip' });
    const job = await fc.crawl(site.url, { prompt: 'The docs section', limit: 10, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    const paths = job.data.map((d) => new URL(String(d.metadata?.sourceURL)).pathname).sort();
    assert.deepEqual(paths, ['/', '/docs/a', '/docs/b']);
  });

  test('a crawl with a prompt and no server LLM is an SdkError 400', async (t) => {
    const { site, fc } = await setup(t, false);
    await assert.rejects(fc.startCrawl(site.url, { prompt: 'docs' }), (err: unknown) => {
      assert.ok(err instanceof SdkError);
      assert.equal(err.status, 400);
      assert.match(err.message, /OPENAI_BASE_URL/);
      return true;
    });
  });
});
