import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import parsePrometheus from 'parse-prometheus-text-format';
import { site, startService } from '../helpers.js';

type Families = ReturnType<typeof parsePrometheus>;

async function scrapeMetrics(url: string, key?: string): Promise<Families & { text: string }> {
  const res = await fetch(`${url}/metrics`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return Object.assign(parsePrometheus(text), { text });
}

/**
 * A histogram's count for one label set, read from the text: the parser keeps histogram buckets but drops
 * their labels and counts when a histogram has labels besides `le`.
 */
function histogramCount(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}_count{${labels}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

/** The value of the sample of `name` whose labels include `labels` (0 when absent). */
function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? sample?.count ?? 0);
}

describe('GET /metrics', () => {
  test('Prometheus text that moves after a scrape: requests by route template, pages by engine and outcome, bytes, content tasks', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const before = await scrapeMetrics(svc.url);
    const scraped = await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure` });
    assert.equal(scraped.status, 200);
    const failed = await svc.post('/api/v1/scrape', { url: `${s.url.replace(/:\d+$/, ':1')}/` });
    assert.notEqual(failed.status, 200);
    await fetch(`${svc.url}/no/such/route/${Math.random()}`);
    const after = await scrapeMetrics(svc.url);

    const route = { route: '/api/v1/scrape', method: 'POST', status: '200' };
    assert.equal(
      value(after, 'pagewright_http_requests_total', route),
      value(before, 'pagewright_http_requests_total', route) + 1,
    );
    assert.equal(
      histogramCount(
        after.text,
        'pagewright_http_request_duration_seconds',
        'route="/api/v1/scrape",method="POST"',
      ),
      2,
    );
    const ok = { engine: 'http', outcome: 'ok' };
    assert.equal(value(after, 'pagewright_pages_fetched_total', ok), 1);
    const failures = after
      .find((f) => f.name === 'pagewright_pages_fetched_total')!
      .metrics.filter((m) => m.labels?.outcome !== 'ok');
    assert.equal(failures.length, 1, 'the refused connection is counted under its error code');
    assert.match(failures[0]!.labels!.outcome!, /^[A-Z_]+$/);
    assert.ok(value(after, 'pagewright_fetched_bytes_total', { engine: 'http' }) > 1000);
    assert.ok(histogramCount(after.text, 'pagewright_content_task_duration_seconds', 'kind="page"') >= 1);
    assert.equal(after.find((f) => f.name === 'pagewright_content_task_duration_seconds')?.type, 'HISTOGRAM');
    assert.equal(value(after, 'pagewright_content_workers', { state: 'threads' }), 1);
    assert.equal(value(after, 'pagewright_job_queue', { state: 'waiting' }), 0);

    // Bounded labels: no URL, path or query of a request ever becomes a label value.
    const labels = after.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    assert.ok(labels.includes('unmatched'), 'an unknown path is counted as unmatched');
    assert.ok(!labels.some((l) => l.includes('127.0.0.1') || l.includes('/no/such')), labels.join(' '));
  });

  test('jobs by kind and state, and behind API_KEYS like every route but /health', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { API_KEYS: 'metrics-key', CRAWL_MIN_DELAY_MS: '0' } });
    assert.equal((await fetch(`${svc.url}/metrics`)).status, 401);
    const started = await fetch(`${svc.url}/v2/batch/scrape`, {
      method: 'POST',
      headers: { authorization: 'Bearer metrics-key', 'content-type': 'application/json' },
      body: JSON.stringify({ urls: [`${s.url}/blog/backpressure`] }),
    });
    const { id } = (await started.json()) as { id: string };
    for (;;) {
      const res = await fetch(`${svc.url}/v2/batch/scrape/${id}`, {
        headers: { authorization: 'Bearer metrics-key' },
      });
      if (((await res.json()) as { status: string }).status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const families = await scrapeMetrics(svc.url, 'metrics-key');
    assert.equal(value(families, 'pagewright_jobs_started_total', { kind: 'batch_scrape' }), 1);
    assert.equal(
      value(families, 'pagewright_jobs_finished_total', { kind: 'batch_scrape', state: 'completed' }),
      1,
    );
    assert.equal(value(families, 'pagewright_jobs_running'), 0);
    assert.ok(
      families.some((f) => f.name === 'pagewright_process_cpu_seconds_total'),
      'process metrics too',
    );
  });
});
