import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startService } from '../helpers.js';

describe('API_KEYS', () => {
  test('nothing but /health answers without a valid key; Bearer and X-Api-Key both work', async (t) => {
    const svc = await startService(t, { env: { API_KEYS: 'k1, k2' } });
    const health = await fetch(`${svc.url}/health`);
    assert.equal(health.status, 200);
    for (const [method, path] of [
      ['GET', '/api/docs/openapi.json'],
      ['POST', '/api/v1/scrape'],
      ['POST', '/v2/crawl'],
      ['GET', '/v2/crawl/active'],
      ['GET', '/v1/crawl/00000000-0000-4000-8000-000000000000'],
      ['GET', '/no/such/route'],
    ] as const) {
      const res = await fetch(svc.url + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(res.status, 401, `${method} ${path}`);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.success, false);
      assert.equal(body.code, 'UNAUTHORIZED');
    }
    const wrong = await fetch(`${svc.url}/v2/crawl/active`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const bearer = await fetch(`${svc.url}/v2/crawl/active`, { headers: { authorization: 'Bearer k2' } });
    assert.equal(bearer.status, 200);
    const header = await fetch(`${svc.url}/api/docs/openapi.json`, { headers: { 'x-api-key': 'k1' } });
    assert.equal(header.status, 200);
  });

  test('without API_KEYS every route answers without a key', async (t) => {
    const svc = await startService(t);
    const res = await fetch(`${svc.url}/v2/crawl/active`);
    assert.equal(res.status, 200);
  });
});
