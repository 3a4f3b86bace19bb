import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setupExtract as setup } from './extract-setup.js';
import type { Item } from './extract-setup.js';

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
      [
        { urls: [product], selectors: { a: 'h1' }, mode: 'css', prompt: 'x' },
        /mode "css" does not use prompt/,
      ],
      [
        { urls: [product], selectors: { a: 'h1' }, prompt: 'x' },
        /prompt is for LLM extraction and needs llmBaseUrl/,
      ],
      [{ urls: [product], selectors: { a: 'h1' }, llmApiKey: 'k' }, /llmApiKey needs llmBaseUrl/],
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
