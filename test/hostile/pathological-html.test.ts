import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { site, startService } from '../helpers.js';
import type { Service } from '../helpers.js';

// No assertion here measures wall time against a budget: bounds are asserted as counts (worker tasks in
// flight, workers ended) and as the order in which answers arrive, so a machine 3x slower passes too.

const PATHOLOGICAL = [
  '/hostile/nested-divs',
  '/hostile/nested-tables',
  '/hostile/unclosed-inline',
  '/hostile/unclosed-lists',
];

async function normalPageWorks(svc: Service, url: string): Promise<void> {
  const { status, json } = await svc.post('/api/v1/scrape', { url, engine: 'http', timeout: 30000 });
  assert.equal(status, 200, JSON.stringify(json).slice(0, 200));
}

async function until(check: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('pathological HTML: refused early, answered by the deadline, workers given back', () => {
  test('deep nesting of every kind is refused at MAX_HTML_DEPTH and leaves no work behind', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    for (const path of PATHOLOGICAL) {
      const { status, json } = await svc.post('/api/v1/scrape', {
        url: s.url + path,
        engine: 'http',
        timeout: 60000,
      });
      assert.equal(status, 422, `${path}: ${JSON.stringify(json).slice(0, 200)}`);
      assert.equal(json.code, 'UNSUPPORTED_CONTENT');
      assert.match(json.error as string, /deeper than 512 levels \(MAX_HTML_DEPTH\)/);
      // The answer came from the worker itself, so nothing of that page still runs.
      assert.equal(svc.contentStats().inFlight, 0);
    }
    assert.equal(svc.contentStats().stopped, 0, 'no worker had to be ended');
    await normalPageWorks(svc, `${s.url}/article`);
  });

  test('MAX_HTML_NODES refuses a wide page as it is parsed', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { MAX_HTML_NODES: '1000' } });
    const { status, json } = await svc.post('/api/v1/scrape', {
      url: `${s.url}/hostile/heavy`,
      engine: 'http',
    });
    assert.equal(status, 422);
    assert.match(json.error as string, /more than 1000 nodes \(MAX_HTML_NODES\)/);
  });

  test('six pathological pages at once are all answered, then a normal page is served', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { CONTENT_WORKERS: '2' } });
    const paths = [...PATHOLOGICAL, ...PATHOLOGICAL].slice(0, 6);
    const answers = await Promise.all(
      paths.map((path) => svc.post('/api/v1/scrape', { url: s.url + path, engine: 'http', timeout: 3000 })),
    );
    for (const [i, { status }] of answers.entries()) {
      assert.ok([422, 408].includes(status), `${paths[i]} answered ${status}`);
    }
    await until(() => svc.contentStats().inFlight === 0, 'the workers to be free');
    await normalPageWorks(svc, `${s.url}/article`);
  });

  test('a page still converting past its deadline is answered 408, then its worker is ended', async (t) => {
    const s = await site(t);
    const logLines: string[] = [];
    const svc = await startService(t, { env: { CONTENT_TASK_GRACE_MS: '100' }, logLines });
    const { status, json } = await svc.post('/api/v1/scrape', {
      url: `${s.url}/hostile/heavy`,
      engine: 'http',
      timeout: 4000,
    });
    assert.equal(status, 408, JSON.stringify(json).slice(0, 200));
    assert.match(json.error as string, /during formatting/, 'the deadline passed while converting');
    await until(() => svc.contentStats().stopped === 1, 'the overrunning task to be stopped');
    const warning = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 40);
    assert.ok(warning, 'one warn line');
    assert.equal(warning.host, new URL(s.url).host);
    assert.match(warning.msg as string, /CONTENT_TASK_GRACE_MS/);
    // The pool replaced the worker: capacity is back.
    await normalPageWorks(svc, `${s.url}/article`);
    assert.equal(svc.contentStats().threads, 1);
  });

  test('a page queued behind a busy worker is answered 408 at its own deadline, not when the worker frees', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { CONTENT_WORKERS: '1', CONTENT_TASK_GRACE_MS: '1000' } });
    const order: string[] = [];
    const client = new AbortController();
    const heavy = fetch(`${svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${s.url}/hostile/heavy`, engine: 'http', timeout: 120000 }),
      signal: client.signal,
    }).then(
      () => order.push('heavy'),
      () => order.push('heavy gone'),
    );
    await until(() => svc.contentStats().inFlight === 1, 'the heavy page to reach the worker');
    // /health stays on the event loop, which no page's work can hold.
    const health = await fetch(`${svc.url}/health`);
    assert.equal(await health.text(), 'ok');
    const queued = await svc.post('/api/v1/scrape', {
      url: `${s.url}/article`,
      engine: 'http',
      timeout: 1000,
    });
    order.push('queued');
    assert.equal(queued.status, 408);
    assert.match(queued.json.error as string, /during formatting/);
    assert.deepEqual(order, ['queued'], 'answered while the heavy page still held the worker');
    assert.equal(svc.contentStats().queued, 0, 'the expired task left the queue');
    // The heavy page's client goes away: its task ends one grace period later instead of running on.
    client.abort();
    await heavy;
    await until(() => svc.contentStats().stopped === 1, 'the abandoned task to be stopped');
  });
});
