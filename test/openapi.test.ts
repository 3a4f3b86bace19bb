import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { startService } from './helpers.js';

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
