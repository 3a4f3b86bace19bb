import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { site, startService } from '../helpers.js';

describe('operator API: /api/v1/jobs and /api/v1/status', () => {
  test('jobs of every kind newest first with progress and their status route; status of the embedded engine', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0' } });
    const start = async (path: string, body: unknown): Promise<string> =>
      ((await svc.post(path, body)).json as { id: string }).id;
    const crawl = await start('/v2/crawl', { url: `${s.url}/blog/backpressure`, limit: 1 });
    const batch = await start('/v2/batch/scrape', { urls: [`${s.url}/shop`] });
    let jobs: Record<string, unknown>[] = [];
    for (let i = 0; i < 600; i++) {
      const res = await fetch(`${svc.url}/api/v1/jobs?limit=10`);
      jobs = ((await res.json()) as { data: Record<string, unknown>[] }).data;
      if (jobs.length === 2 && jobs.every((j) => j.state === 'completed')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(
      jobs.map((j) => [j.id, j.kind, j.state, j.completed, j.statusUrl]),
      [
        [batch, 'batch_scrape', 'completed', 1, `/v2/batch/scrape/${batch}`],
        [crawl, 'crawl', 'completed', 1, `/v2/crawl/${crawl}`],
      ],
    );
    assert.equal(jobs[1]!.url, `${s.url}/blog/backpressure`);
    assert.ok((jobs[1]!.pagesPerSecond as number) > 0);
    assert.equal((await fetch(`${svc.url}/api/v1/jobs?limit=ten`)).status, 400);
    const status = (await (await fetch(`${svc.url}/api/v1/status`)).json()) as Record<string, unknown>;
    assert.equal(status.mode, 'embedded');
    assert.equal(status.workers, null);
    assert.equal(status.redis, null);
    assert.equal(status.problem, null);
    assert.deepEqual(Object.keys(status.content as object).sort(), [
      'inFlight',
      'queued',
      'stopped',
      'threads',
    ]);
  });
});
