import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { startLlmStub } from './fixtures/llm-stub.js';
import { site, startService } from './helpers.js';

interface Item {
  url: string;
  success: boolean;
  data?: Record<string, unknown>;
  error?: string;
  method?: string;
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const s = await site(t);
  const llm = await startLlmStub();
  t.after(() => llm.close());
  const svc = await startService(t, { env });
  const extract = (body: Record<string, unknown>) => svc.post('/api/v1/extract', body);
  return { s, llm, svc, extract, product: `${s.url}/product/alpin-gtx` };
}

const productSelectors = {
  title: 'h1.product-title',
  price: '.price',
  inStock: '.in-stock',
  rating: '.rating',
  reviews: '.reviews',
  tags: 'ul.tags li',
  sizes: 'ul.sizes li',
  manual: 'a.manual@href',
};

describe('POST /api/v1/extract', () => {
  test('css mode: text by selector, coerced by schema type (number, integer, boolean, arrays), attributes', async (t) => {
    const { extract, product } = await setup(t);
    const { status, json } = await extract({
      urls: [product],
      mode: 'css',
      selectors: productSelectors,
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          price: { type: 'number' },
          inStock: { type: 'boolean' },
          rating: { type: 'number' },
          reviews: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          sizes: { type: 'array', items: { type: 'integer' } },
          manual: { type: 'string' },
        },
        required: ['title', 'price'],
      },
    });
    assert.equal(status, 200, JSON.stringify(json));
    const item = (json.results as Item[])[0]!;
    assert.equal(item.success, true, item.error);
    assert.equal(item.method, 'css');
    assert.deepEqual(item.data, {
      title: 'Alpin GTX',
      price: 149.95,
      inStock: true,
      rating: 4.5,
      reviews: 1203,
      tags: ['waterproof', 'leather', 'vibram'],
      sizes: [42, 43, 44],
      manual: '/manuals/alpin-gtx.pdf',
    });
    assert.deepEqual((json.data as unknown[])[0], item.data);
    assert.equal(json.success, true);
    assert.equal(json.allSuccessful, true);
    assert.deepEqual(json.warnings, []);
  });

  test('without a schema css values stay strings; booleans only from true/yes/1', async (t) => {
    const { extract, product } = await setup(t);
    const { json } = await extract({ urls: [product], selectors: { price: '.price', inStock: '.rating' } });
    assert.deepEqual((json.results as Item[])[0]!.data, { price: '149,95 €', inStock: '4.5 out of 5' });
    const typed = await extract({
      urls: [product],
      selectors: { inStock: '.rating' },
      schema: { type: 'object', properties: { inStock: { type: 'boolean' } } },
    });
    assert.deepEqual((typed.json.results as Item[])[0]!.data, { inStock: false });
  });

  test('schema violations are per-URL errors with JSON pointer paths', async (t) => {
    const { extract, product } = await setup(t);
    const { json } = await extract({
      urls: [product],
      mode: 'css',
      selectors: { title: 'h1', price: '.rating' },
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 3 },
          price: { type: 'number', maximum: 1 },
          sku: { type: 'string' },
        },
        required: ['sku'],
      },
    });
    const item = (json.results as Item[])[0]!;
    assert.equal(item.success, false);
    assert.match(item.error!, /\/title: must NOT have more than 3 characters/);
    assert.match(item.error!, /\/price: must be <= 1/);
    assert.match(item.error!, /\/sku: is required/);
    assert.equal(json.success, true);
    assert.equal(json.allSuccessful, false);
    assert.deepEqual((json.data as unknown[])[0], { url: product, error: item.error });
    assert.deepEqual(json.warnings, [{ url: product, error: item.error }]);
  });

  test('every draft, selected by $schema, with its own keywords', async (t) => {
    const { extract, product } = await setup(t);
    const selectors = { rating: '.rating', sizes: 'ul.sizes li' };
    const cases: [string, Record<string, unknown>, boolean][] = [
      [
        'draft-04 exclusiveMinimum boolean',
        {
          $schema: 'http://json-schema.org/draft-04/schema#',
          properties: { rating: { type: 'number', minimum: 4.5, exclusiveMinimum: true } },
        },
        false,
      ],
      [
        'draft-04 definitions',
        {
          $schema: 'http://json-schema.org/draft-04/schema#',
          definitions: { r: { type: 'number' } },
          properties: { rating: { $ref: '#/definitions/r' } },
        },
        true,
      ],
      [
        'draft-06 exclusiveMinimum number',
        {
          $schema: 'http://json-schema.org/draft-06/schema#',
          properties: { rating: { type: 'number', exclusiveMinimum: 4 } },
        },
        true,
      ],
      [
        'draft-07 if/then',
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          if: { properties: { rating: { minimum: 4 } } },
          then: { required: ['sizes'] },
          properties: { rating: { type: 'number' } },
        },
        true,
      ],
      [
        '2019-09 $defs',
        {
          $schema: 'https://json-schema.org/draft/2019-09/schema',
          $defs: { r: { type: 'number', maximum: 4 } },
          properties: { rating: { $ref: '#/$defs/r' } },
        },
        false,
      ],
      [
        '2020-12 prefixItems',
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          properties: {
            sizes: { type: 'array', prefixItems: [{ const: 42 }, { const: 43 }], items: { type: 'integer' } },
          },
        },
        true,
      ],
      [
        'default dialect is 2020-12',
        { properties: { sizes: { type: 'array', prefixItems: [{ const: 44 }] } } },
        false,
      ],
    ];
    for (const [name, schema, ok] of cases) {
      const { status, json } = await extract({
        urls: [product],
        mode: 'css',
        selectors,
        schema: { type: 'object', ...schema },
      });
      assert.equal(status, 200, `${name}: ${JSON.stringify(json)}`);
      assert.equal(
        (json.results as Item[])[0]!.success,
        ok,
        `${name}: ${(json.results as Item[])[0]!.error ?? ''}`,
      );
    }
  });

  test('request-level errors come before any fetch or model call', async (t) => {
    const { s, llm, extract, product } = await setup(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ urls: [], selectors: { a: 'h1' } }, /urls must NOT have fewer than 1 items/],
      [{ urls: Array(11).fill(product), selectors: { a: 'h1' } }, /urls must NOT have more than 10 items/],
      [{ urls: ['ftp://x/'], selectors: { a: 'h1' } }, /urls\[0\] scheme/],
      [
        { urls: [product], selectors: { a: 'h1' }, schema: { $schema: 'http://example.com/my-dialect' } },
        /unsupported \$schema dialect/,
      ],
      [{ urls: [product], selectors: { a: 'h1' }, schema: { type: 'strnig' } }, /schema: schema is invalid/],
      [{ urls: [product], selectors: { a: 'h1' }, schema: { $ref: '#/$defs/missing' } }, /unresolved \$ref/],
      [
        {
          urls: [product],
          selectors: { a: 'h1' },
          schema: { properties: { a: { $ref: `${s.url}/schema.json` } } },
        },
        /unresolved \$ref/,
      ],
      [
        {
          urls: [product],
          selectors: { a: 'h1' },
          schema: { properties: { a: { type: 'string', format: 'sku-code' } } },
        },
        /unknown format "sku-code"/,
      ],
      [{ urls: [product] }, /mode "auto" needs selectors, or LLM credentials/],
      [{ urls: [product], mode: 'css' }, /mode "css" needs selectors/],
      [{ urls: [product], mode: 'llm', selectors: { a: 'h1' } }, /mode "llm" needs llmBaseUrl/],
      [{ urls: [product], selectors: { a: 'h1[' } }, /selectors\.a is not a valid CSS selector/],
      [{ urls: [product], llmBaseUrl: 'not a url' }, /llmBaseUrl must be an absolute/],
      [{ urls: [product], selectors: { a: 'h1' }, mode: 'fuzzy' }, /mode must be one of: auto, css, llm/],
    ];
    for (const [body, message] of cases) {
      const { status, json } = await extract(body);
      assert.equal(status, 400, JSON.stringify(body).slice(0, 200));
      assert.match(json.error as string, message);
    }
    assert.deepEqual(s.requests, [], 'the fixture site saw nothing (no remote $ref either)');
    assert.deepEqual(llm.requests, [], 'the LLM saw nothing');
  });

  test('an invalid SERVICE_EXTRACT_CONCURRENCY is a request-level configuration error', async (t) => {
    const { s, extract, product } = await setup(t, { SERVICE_EXTRACT_CONCURRENCY: '11' });
    const { status, json } = await extract({ urls: [product], selectors: { a: 'h1' } });
    assert.equal(status, 500);
    assert.equal(json.code, 'CONFIGURATION_ERROR');
    assert.match(json.error as string, /SERVICE_EXTRACT_CONCURRENCY must be an integer from 1 to 10/);
    assert.deepEqual(s.requests, []);
  });

  test('llm mode over Chat Completions: schema, prompt, page Markdown and the key are sent; base URL with or without /v1', async (t) => {
    const { llm, extract, product } = await setup(t);
    llm.reply = () => ({ text: '```json\n{"title":"Alpin GTX","price":149.95}\n```' });
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, price: { type: 'number' } },
      required: ['title'],
    };
    for (const base of [llm.url, `${llm.url}/v1`, `${llm.url}/v1/chat/completions`]) {
      const { json } = await extract({
        urls: [product],
        mode: 'llm',
        schema,
        prompt: 'Get the product name and price',
        llmBaseUrl: base,
        llmApiKey: 'sk-test-123',
        llmModel: 'tiny-model',
      });
      const item = (json.results as Item[])[0]!;
      assert.equal(item.success, true, item.error);
      assert.equal(item.method, 'llm');
      assert.deepEqual(item.data, { title: 'Alpin GTX', price: 149.95 });
    }
    assert.ok(llm.requests.every((r) => r.path === '/v1/chat/completions'));
    const sent = llm.requests[0]!;
    assert.equal(sent.headers.authorization, 'Bearer sk-test-123');
    assert.equal(sent.body.model, 'tiny-model');
    const format = sent.body.response_format as { type: string; json_schema: { schema: unknown } };
    assert.equal(format.type, 'json_schema');
    assert.deepEqual(format.json_schema.schema, schema);
    const user = (sent.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'user',
    )!.content;
    assert.match(user, /Get the product name and price/);
    assert.match(user, /# Alpin GTX/);
    assert.match(user, /149,95 €/);
  });

  test('the Responses API is used for a /responses URL; no Authorization header without a key', async (t) => {
    const { llm, extract, product } = await setup(t);
    llm.reply = () => ({ text: '{"title":"Alpin GTX"}' });
    const { json } = await extract({ urls: [product], mode: 'llm', llmBaseUrl: `${llm.url}/v1/responses` });
    assert.equal((json.results as Item[])[0]!.success, true);
    const sent = llm.requests[0]!;
    assert.equal(sent.path, '/v1/responses');
    assert.equal(sent.headers.authorization, undefined);
    assert.equal(sent.body.model, 'gpt-4o-mini', 'the documented default model');
    assert.match(String(sent.body.input), /Alpin GTX/);
    assert.deepEqual((sent.body.text as { format: { type: string } }).format.type, 'json_object');
  });

  test('auto mode: css first; below 50% complete or schema-invalid it falls back to the LLM', async (t) => {
    const { llm, extract, product } = await setup(t);
    llm.reply = () => ({ text: '{"title":"Alpin GTX","price":149.95,"sku":"AG-1","color":"brown"}' });
    const schema = {
      type: 'object',
      properties: { title: {}, price: { type: 'number' }, sku: {}, color: {} },
    };
    const complete = await extract({
      urls: [product],
      schema,
      selectors: { title: 'h1', price: '.price', sku: 'h1' },
      llmBaseUrl: llm.url,
    });
    assert.equal((complete.json.results as Item[])[0]!.method, 'css', '3 of 4 fields filled');
    assert.equal(llm.requests.length, 0);
    const sparse = await extract({
      urls: [product],
      schema,
      selectors: { title: 'h1', sku: '.nope' },
      llmBaseUrl: llm.url,
    });
    const item = (sparse.json.results as Item[])[0]!;
    assert.equal(item.method, 'llm', '1 of 4 fields filled');
    assert.equal(item.data!.sku, 'AG-1');
    const invalid = await extract({
      urls: [product],
      schema: { type: 'object', properties: { title: { type: 'string' }, price: { type: 'integer' } } },
      selectors: { title: 'h1', price: '.price' },
      llmBaseUrl: llm.url,
    });
    assert.equal(
      (invalid.json.results as Item[])[0]!.success,
      false,
      'the LLM answer (149.95) is not an integer either',
    );
    assert.equal(llm.requests.length, 2);
    const cssOnly = await extract({ urls: [product], schema, selectors: { title: 'h1' } });
    assert.equal(
      (cssOnly.json.results as Item[])[0]!.method,
      'css',
      'no LLM credentials: the css result stands',
    );
  });

  test('LLM failures (HTTP 429/500, not JSON) are per-URL errors that never show the key', async (t) => {
    const { llm, extract, product } = await setup(t);
    for (const reply of [
      { status: 429 },
      { status: 500 },
      { text: 'Sorry, I cannot help with that.' },
      { raw: '<html>gateway</html>' },
    ]) {
      llm.reply = () => reply;
      const { status, json } = await extract({
        urls: [product],
        mode: 'llm',
        llmBaseUrl: llm.url,
        llmApiKey: 'sk-secret-999',
      });
      assert.equal(status, 200);
      const item = (json.results as Item[])[0]!;
      assert.equal(item.success, false);
      assert.doesNotMatch(JSON.stringify(json), /sk-secret-999/);
      if (reply.status) assert.match(item.error!, new RegExp(`HTTP ${reply.status}`));
    }
  });

  test('the LLM key never reaches the log', async (t) => {
    const s = await site(t);
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const logLines: string[] = [];
    const svc = await startService(t, { logLines });
    llm.reply = () => ({ status: 500 });
    await svc.post('/api/v1/extract', {
      urls: [`${s.url}/product/alpin-gtx`],
      mode: 'llm',
      llmBaseUrl: llm.url,
      llmApiKey: 'sk-never-log-me',
    });
    await svc.post('/api/v1/extract', { urls: ['bad'], llmBaseUrl: llm.url, llmApiKey: 'sk-never-log-me' });
    assert.ok(logLines.length > 0, 'the service logged');
    assert.ok(!logLines.some((line) => line.includes('sk-never-log-me')));
  });

  test('a URL that times out fails alone; the others succeed, in input order', async (t) => {
    const { s, extract, product } = await setup(t);
    const urls = [product, `${s.url}/slow?ms=8000`, `${s.url}/product/bare`];
    const { json } = await extract({ urls, selectors: { title: 'h1' }, timeout: 2500 });
    const results = json.results as Item[];
    assert.deepEqual(
      results.map((r) => r.url),
      urls,
    );
    assert.equal(results[0]!.success, true);
    assert.equal(results[1]!.success, false);
    assert.match(results[1]!.error!, /2500 ms timeout was exceeded/);
    assert.equal(results[2]!.success, true);
    assert.deepEqual(results[2]!.data, {});
    assert.equal(json.allSuccessful, false);
    assert.deepEqual(
      (json.warnings as { url: string }[]).map((w) => w.url),
      [urls[1]],
    );
  });

  test('SERVICE_EXTRACT_CONCURRENCY bounds the URLs in flight at the site; each budget starts with its slot', async (t) => {
    const { s, extract } = await setup(t, { SERVICE_EXTRACT_CONCURRENCY: '2' });
    const urls = Array.from({ length: 6 }, (_, i) => `${s.url}/slow?ms=600&i=${i}`);
    const { json } = await extract({ urls, selectors: { title: 'h1' }, timeout: 2000 });
    assert.equal(s.maxInFlight(), 2);
    assert.equal(
      json.allSuccessful,
      true,
      'waiting for a slot does not count against the 2000 ms budget (the batch takes 3 × 600 ms)',
    );
  });
});
