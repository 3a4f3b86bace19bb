import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { site, startService } from '../helpers.js';

/**
 * Issue 37: patterns and schemas from callers must not hold the event loop. Each probe below costs a
 * backtracking engine 2^40 steps or more (hours; the originals blocked /health for 7 to 21 s), so a
 * slowest /health answer under a second, polled while the probe runs, holds with a wide margin on a
 * machine several times slower than a laptop, and fails by orders of magnitude if matching backtracks.
 */
const RESPONSIVE_MS = 1000;

/**
 * Runs `probe` while /health is polled back to back. The longest gap between answers (from the start,
 * and to the end) covers any stretch the event loop was held, whether or not a request was in flight.
 */
async function healthWhile<T>(url: string, probe: () => Promise<T>) {
  let done = false;
  let last = performance.now();
  let slowestMs = 0;
  let answers = 0;
  const answered = (): void => {
    const now = performance.now();
    slowestMs = Math.max(slowestMs, now - last);
    last = now;
  };
  const poll = (async () => {
    while (!done) {
      assert.equal(await (await fetch(`${url}/health`)).text(), 'ok');
      answered();
      answers++;
      await sleep(10);
    }
  })();
  const result = await probe().finally(() => (done = true));
  await poll;
  answered();
  assert.ok(answers > 0);
  assert.ok(slowestMs < RESPONSIVE_MS, `/health waited ${slowestMs.toFixed(0)} ms during the probe`);
  return result;
}

const A40 = 'a'.repeat(40);

/** A page linking to ten paths a backtracking `^/(a+)+$` chokes on, and one it matches. */
async function hostileLinks(t: TestContext) {
  const requests: string[] = [];
  const links = [...Array.from({ length: 10 }, (_, i) => `/${A40}${'a'.repeat(i)}!`), '/aaa'];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url !== '/' && req.url !== '/aaa') return void res.writeHead(404).end();
    const body = links.map((href) => `<a href="${href}">${href.length}</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>Links</p>${body}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** `levels` of nested `properties`, as JSON text (JSON.stringify itself overflows on it). */
const nestedSchema = (levels: number): string =>
  '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + '}}'.repeat(levels);

async function postRaw(url: string, body: string) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('hostile patterns and schemas (issue 37)', () => {
  test("Firecrawl v2 crawl: includePaths '^/(a+)+$' against ten /aaa...a! links runs in linear time", async (t) => {
    const target = await hostileLinks(t);
    const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0' } });
    const status = await healthWhile(svc.url, async () => {
      const started = await svc.post('/v2/crawl', {
        url: `${target.url}/`,
        includePaths: ['^/(a+)+$'],
        sitemap: 'skip',
        limit: 20,
      });
      assert.equal(started.status, 200, JSON.stringify(started.json));
      for (;;) {
        const res = await fetch(`${svc.url}/v2/crawl/${String(started.json.id)}`);
        const body = (await res.json()) as Record<string, unknown>;
        if (body.status !== 'scraping') return body;
        await sleep(50);
      }
    });
    assert.equal(status.status, 'completed', JSON.stringify(status));
    assert.equal(status.completed, 2, 'the start page and /aaa, the one link the pattern matches');
    assert.ok(target.requests.includes('/aaa'));
    assert.ok(!target.requests.some((path) => path.includes('!')), target.requests.join(' '));
  });

  test('Firecrawl: a pattern RE2 cannot run is a 400 naming the field before anything is fetched', async (t) => {
    const target = await hostileLinks(t);
    const svc = await startService(t);
    for (const [path, body, field] of [
      ['/v2/crawl', { url: target.url, includePaths: ['^/docs', '^/(?!private)'] }, 'includePaths[1]'],
      ['/v1/crawl', { url: target.url, excludePaths: ['(a)\\1'] }, 'excludePaths[0]'],
      ['/v2/crawl', { url: target.url, regexOnFullURL: true, includePaths: ['(?<=x)y'] }, 'includePaths[0]'],
    ] as const) {
      const res = await svc.post(path, body);
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.match(String(res.json.error), new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    }
    assert.deepEqual(target.requests, []);
  });

  test('native crawl: an extglob in includePaths is a 400 naming the field, before the crawl starts', async (t) => {
    const target = await hostileLinks(t);
    const svc = await startService(t);
    const extglob = `/${'+(a)'.repeat(12)}b`;
    const res = await healthWhile(svc.url, () =>
      svc.post('/api/v1/crawl', { url: target.url, includePaths: ['/blog/**', '/docs/*', extglob] }),
    );
    assert.equal(res.status, 400);
    assert.equal(res.json.code, 'BAD_REQUEST');
    assert.equal(res.json.error, 'includePaths[2]: extglob patterns are not supported');
    assert.deepEqual(target.requests, []);
  });

  test("extract: a schema pattern '^/(a+)+$' checks the LLM's answer in linear time", async (t) => {
    const s = await site(t);
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const svc = await startService(t);
    const schema = {
      type: 'object',
      properties: { path: { type: 'string', pattern: '^/(a+)+$' } },
      required: ['path'],
    };
    const extract = (path: string) => {
      llm.reply = () => ({ text: JSON.stringify({ path }) });
      return svc.post('/api/v1/extract', {
        urls: [`${s.url}/blog/backpressure`],
        mode: 'llm',
        llmBaseUrl: llm.url,
        schema,
      });
    };
    const hostile = await healthWhile(svc.url, () => extract(`/${A40}!`));
    assert.equal(hostile.status, 200);
    const [item] = hostile.json.results as { success: boolean; error?: string }[];
    assert.equal(item!.success, false);
    assert.match(String(item!.error), /\/path: must match pattern/);
    const fine = await extract('/aaaa');
    assert.equal((fine.json.results as { success: boolean }[])[0]!.success, true);
  });

  test('extract: 20,000 properties and 3,000 nested levels are a 400 naming the limit, never a 500', async (t) => {
    const s = await site(t);
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const svc = await startService(t, { env: { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub' } });
    const url = `${s.url}/blog/backpressure`;
    const properties = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const wide = await healthWhile(svc.url, () =>
      svc.post('/api/v1/extract', { urls: [url], mode: 'llm', llmBaseUrl: llm.url, schema: { properties } }),
    );
    assert.equal(wide.status, 400);
    assert.equal(wide.json.error, 'schema too large: more than 200 properties');

    const deep = nestedSchema(3000);
    assert.ok(deep.length > 100_000);
    for (const [path, body, error] of [
      [
        '/api/v1/extract',
        `{"urls":["${url}"],"mode":"llm","llmBaseUrl":"${llm.url}","schema":${deep}}`,
        'schema too large: more than 32 levels of nesting (objects and arrays)',
      ],
      ['/v2/extract', `{"urls":["${url}"],"schema":${deep}}`, 'schema too large'],
      [
        '/v2/scrape',
        `{"url":"${url}","formats":[{"type":"json","schema":${deep}}]}`,
        'formats[0].schema too large',
      ],
      [
        '/v1/scrape',
        `{"url":"${url}","formats":["json"],"jsonOptions":{"schema":${deep}}}`,
        'jsonOptions.schema',
      ],
    ] as const) {
      const res = await healthWhile(svc.url, () => postRaw(svc.url + path, body));
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.json)}`);
      assert.ok(String(res.json.error).startsWith(error), `${path}: ${String(res.json.error)}`);
    }
    assert.equal(llm.requests.length, 0, 'no model was asked anything');
    assert.ok(!s.requests.includes('/blog/backpressure'), 'no page was fetched');
  });
});
