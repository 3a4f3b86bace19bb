import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { startService } from '../helpers.js';

test('GET /health answers ok as text/plain', async (t) => {
  const svc = await startService(t);
  const res = await fetch(`${svc.url}/health`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(await res.text(), 'ok');
});

test('GET /api/docs/openapi.json is a valid OpenAPI 3.1 document covering every route', async (t) => {
  const svc = await startService(t);
  const res = await fetch(`${svc.url}/api/docs/openapi.json`);
  assert.equal(res.status, 200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  assert.equal(doc.openapi, '3.1.0');
  const result = await validate(structuredClone(doc) as never);
  assert.equal(result.valid, true, JSON.stringify(result));
  assert.ok(doc.paths['/health']?.get, '/health');
  for (const path of ['scrape', 'crawl', 'crawl/stream', 'map', 'search', 'extract', 'llmstxt']) {
    assert.ok(doc.paths[`/api/v1/${path}`]?.post, `/api/v1/${path}`);
  }
  const scrape = doc.paths['/api/v1/scrape']?.post as {
    requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    responses: Record<string, unknown>;
  };
  const fields = Object.keys(scrape.requestBody.content['application/json'].schema.properties);
  for (const field of [
    'url',
    'formats',
    'engine',
    'timeout',
    'headers',
    'onlyMainContent',
    'waitFor',
    'waitForSelector',
    'removeBase64Images',
    'skipTlsVerification',
    'screenshot',
    'screenshotFormat',
    'actions',
    'includeTags',
    'excludeTags',
  ]) {
    assert.ok(fields.includes(field), `scrape body documents ${field}`);
  }
  assert.ok(
    (scrape.responses['200'] && scrape.responses['4XX'] !== undefined) ||
      scrape.responses['4xx'] !== undefined,
  );
});

test("OpenAPI scrape schema carries the native API's defaults", async (t) => {
  const svc = await startService(t);
  const doc = (await (await fetch(`${svc.url}/api/docs/openapi.json`)).json()) as {
    paths: Record<
      string,
      {
        post: {
          requestBody: {
            content: Record<
              string,
              { schema: { properties: Record<string, { default?: unknown }>; required: string[] } }
            >;
          };
        };
      }
    >;
  };
  const schema = doc.paths['/api/v1/scrape']!.post.requestBody.content['application/json']!.schema;
  const defaults = Object.fromEntries(
    Object.entries(schema.properties)
      .filter(([, s]) => s.default !== undefined)
      .map(([k, s]) => [k, s.default]),
  );
  assert.deepEqual(defaults, {
    formats: ['markdown'],
    engine: 'auto',
    timeout: 30000,
    headers: {},
    onlyMainContent: false,
    waitFor: 0,
    removeBase64Images: true,
    blockAds: true, // beyond the native API's fields: the browser's ad blocking (as Firecrawl's default)
    skipTlsVerification: false,
    proxy: 'basic',
    screenshot: false,
    screenshotFormat: 'png',
    mobile: false,
  });
  assert.deepEqual(schema.required, ['url']);
});
