import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setupExtract as setup } from './extract-setup.js';
import type { Item } from './extract-setup.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { site, startService } from '../helpers.js';

describe('POST /api/v1/extract with an LLM', () => {
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
});
