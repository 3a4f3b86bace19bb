import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { site, startService } from '../helpers.js';

interface Result {
  title: string;
  url: string;
  snippet: string;
  content?: { markdown?: string; links?: string[]; metadata: Record<string, unknown> } | null;
  error?: string;
}

async function setup(t: TestContext, provider: 'searxng' | 'duckduckgo' | 'brave') {
  const s = await site(t);
  const stub = await startSearchStub();
  t.after(() => stub.close());
  stub.hits = [
    {
      title: 'Understanding Backpressure',
      url: `${s.url}/blog/backpressure`,
      snippet: 'Why Node streams say no.',
    },
    {
      title: 'Fluxdb configuration',
      url: `${s.url}/docs/v2/configuration`,
      snippet: 'Every option of the server.',
    },
    { title: 'A picture', url: `${s.url}/image.png`, snippet: 'Not a page.' },
    ...Array.from({ length: 9 }, (_, i) => ({
      title: `Shop ${i}`,
      url: `${s.url}/shop?i=${i}`,
      snippet: `Listing ${i}`,
    })),
  ];
  const env: Record<string, string> =
    provider === 'searxng'
      ? { SEARXNG_URL: `${stub.url}/searxng` }
      : provider === 'brave'
        ? { BRAVE_API_KEY: 'brave-key', BRAVE_SEARCH_URL: `${stub.url}/brave/res/v1/web/search` }
        : { DUCKDUCKGO_URL: `${stub.url}/ddg/html/` };
  const svc = await startService(t, { env });
  return { s, stub, svc };
}

describe('POST /api/v1/search', () => {
  test('SearXNG JSON: default limit 10 over two result pages; title, url, snippet only', async (t) => {
    const { stub, svc } = await setup(t, 'searxng');
    const { status, json } = await svc.post('/api/v1/search', { query: 'node backpressure' });
    assert.equal(status, 200, JSON.stringify(json));
    const data = json.data as Result[];
    assert.equal(data.length, 10);
    assert.deepEqual(Object.keys(data[0]!).sort(), ['snippet', 'title', 'url']);
    assert.equal(data[0]!.title, 'Understanding Backpressure');
    assert.equal(stub.requests[0]!.query.get('format'), 'json');
    assert.equal(stub.requests[0]!.query.get('q'), 'node backpressure');
    assert.deepEqual(
      stub.requests.map((r) => r.query.get('pageno')),
      ['1', '2'],
    );
    const three = await svc.post('/api/v1/search', { query: 'x', limit: 3 });
    assert.equal((three.json.data as Result[]).length, 3);
  });

  test('scrapeResults: each hit gets content in the requested formats; a failed page gets content null and an error', async (t) => {
    const { s, svc } = await setup(t, 'searxng');
    const { json } = await svc.post('/api/v1/search', {
      query: 'node',
      limit: 12,
      scrapeResults: true,
      scrapeOptions: { formats: ['markdown', 'links'], onlyMainContent: true },
    });
    const data = json.data as Result[];
    assert.equal(data.length, 12);
    const article = data[0]!.content!;
    assert.match(article.markdown!, /When a producer writes data faster/);
    assert.doesNotMatch(article.markdown!, /All rights reserved/, 'onlyMainContent honoured');
    assert.ok(Array.isArray(article.links));
    assert.deepEqual(Object.keys(article.metadata).sort(), ['readingTime', 'title', 'wordCount']);
    assert.equal(article.metadata.title, 'Understanding Backpressure in Node.js Streams | The Runtime Blog');
    const picture = data[2]!;
    assert.equal(picture.content, null);
    assert.match(picture.error!, /image\/png/);
    assert.ok(s.maxInFlight() <= 5, `at most 5 pages scraped at once (saw ${s.maxInFlight()})`);
  });

  test('scrapeOptions.timeout is per page (default 10 s)', async (t) => {
    const { s, stub, svc } = await setup(t, 'searxng');
    stub.hits = [
      { title: 'slow', url: `${s.url}/slow?ms=8000`, snippet: '' },
      { title: 'fast', url: `${s.url}/shop`, snippet: '' },
    ];
    const { json } = await svc.post('/api/v1/search', {
      query: 'x',
      scrapeResults: true,
      scrapeOptions: { timeout: 2500 },
    });
    const data = json.data as Result[];
    assert.equal(data[0]!.content, null);
    assert.match(data[0]!.error!, /2500 ms/);
    assert.match(data[1]!.content!.markdown!, /Wanderschuhe/);
  });

  test('DuckDuckGo HTML (the key-less default): ads left out, redirect links unwrapped, snippets as text', async (t) => {
    const { s, svc } = await setup(t, 'duckduckgo');
    const { status, json } = await svc.post('/api/v1/search', { query: 'node streams', limit: 5 });
    assert.equal(status, 200, JSON.stringify(json));
    const data = json.data as Result[];
    assert.equal(data.length, 5);
    assert.deepEqual(data[0], {
      title: 'Understanding Backpressure',
      url: `${s.url}/blog/backpressure`,
      snippet: 'Why Node streams say no.',
    });
    assert.ok(data.every((r) => !r.url.includes('duckduckgo.com') && !/cheap/i.test(r.title)));
  });

  test('Brave Search API with its key header', async (t) => {
    const { s, stub, svc } = await setup(t, 'brave');
    const { json } = await svc.post('/api/v1/search', { query: 'node', limit: 2 });
    assert.deepEqual(json.data, [
      {
        title: 'Understanding Backpressure',
        url: `${s.url}/blog/backpressure`,
        snippet: 'Why Node streams say no.',
      },
      {
        title: 'Fluxdb configuration',
        url: `${s.url}/docs/v2/configuration`,
        snippet: 'Every option of the server.',
      },
    ]);
    assert.equal(stub.requests[0]!.headers['x-subscription-token'], 'brave-key');
    assert.equal(stub.requests[0]!.query.get('count'), '2');
  });

  test('provider failures are 502 SEARCH_PROVIDER_FAILED naming the provider', async (t) => {
    for (const provider of ['searxng', 'duckduckgo', 'brave'] as const) {
      const { stub, svc } = await setup(t, provider);
      for (const mode of ['429', '500', 'garbage'] as const) {
        stub.mode = mode;
        const { status, json } = await svc.post('/api/v1/search', { query: 'x' });
        assert.equal(status, 502, `${provider} ${mode}`);
        assert.equal(json.code, 'SEARCH_PROVIDER_FAILED');
        assert.match(json.error as string, new RegExp(provider));
        if (mode === '429') assert.match(json.error as string, /429/);
      }
    }
  });

  test('bad input is a 400; provider settings are checked at startup', async (t) => {
    const { stub, svc } = await setup(t, 'searxng');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /missing required field 'query'/],
      [{ query: '' }, /query must NOT have fewer than 1 characters/],
      [{ query: '   ' }, /query must not be empty/],
      [{ query: 'x', limit: 0 }, /limit must be >= 1/],
      [{ query: 'x', limit: 51 }, /limit must be <= 50/],
      [{ query: 'x', scrapeOptions: { formats: ['pdf'] } }, /scrapeOptions\.formats\[0\] must be one of/],
      [{ query: 'x', scrapeOptions: { headers: {} } }, /unknown field 'headers' in scrapeOptions/],
    ];
    for (const [body, message] of cases) {
      const res = await svc.post('/api/v1/search', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json.error as string, message);
    }
    assert.deepEqual(stub.requests, []);
    assert.throws(() => loadConfig({ SEARCH_PROVIDER: 'bing' }), /SEARCH_PROVIDER must be/);
    assert.throws(() => loadConfig({ SEARCH_PROVIDER: 'searxng' }), /needs SEARXNG_URL/);
    assert.equal(loadConfig({}).search.provider, 'duckduckgo');
    assert.equal(loadConfig({ SEARXNG_URL: 'http://searxng:8080' }).search.provider, 'searxng');
  });
});
