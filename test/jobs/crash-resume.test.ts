import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { freePort } from '../fixtures/free-port.js';
import { spawnService } from '../fixtures/service-process.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const json = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(url)).json()) as Record<string, unknown>;

describe('a crawl job survives kill -9', () => {
  test('resumes from its frontier after a restart: completes, no duplicate document, only in-flight pages refetched', async (t) => {
    const site = await startCrawlSite({ pages: 400, bare: true, delayMs: 40 });
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-crash-'));
    const children: ChildProcess[] = [];
    t.after(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await site.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = `http://127.0.0.1:${site.port}/gen/0`;
    const concurrency = 4;
    children.push(await spawnService(dataDir, port));
    const started = await fetch(`${base}/v2/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: start, limit: 120, maxConcurrency: concurrency, crawlEntireDomain: true }),
    });
    assert.equal(started.status, 200);
    const { id } = (await started.json()) as { id: string };

    // Kill it hard in the middle of the crawl.
    for (let i = 0; i < 1200; i++) {
      const status = await json(`${base}/v2/crawl/${id}?limit=1`);
      if ((status.completed as number) >= 30) break;
      await sleep(50);
    }
    children[0]!.kill('SIGKILL');
    await new Promise((resolve) => children[0]!.once('exit', resolve));
    const hitsAtKill = site.hits.length;
    const fetchedBeforeKill = new Set(site.hits.map((h) => h.path));
    const before = await fetch(`${base}/health`).catch(() => null);
    assert.equal(before, null, 'the service is gone');

    children.push(await spawnService(dataDir, port));
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 1200; i++) {
      status = await json(`${base}/v2/crawl/${id}?limit=1`);
      if (status.status !== 'scraping') break;
      await sleep(100);
    }
    assert.equal(status.status, 'completed', JSON.stringify({ ...status, data: undefined }));
    assert.equal(status.completed, 120, JSON.stringify({ ...status, data: undefined }));

    // Every document, page by page: 120 distinct pages.
    const urls: string[] = [];
    let next: string | undefined = `${base}/v2/crawl/${id}?limit=25`;
    while (next) {
      const page = await json(next);
      for (const doc of page.data as { metadata: { sourceURL: string } }[]) urls.push(doc.metadata.sourceURL);
      next = page.next as string | undefined;
    }
    assert.equal(urls.length, 120);
    assert.equal(new Set(urls).size, 120, 'no document is duplicated');

    // Pages fetched twice: only those in flight at the kill (at most one per worker), all fetched before it.
    const counts = new Map<string, number>();
    for (const hit of site.hits) {
      if (hit.path === '/robots.txt' || hit.path.includes('sitemap')) continue; // read again by design
      counts.set(hit.path, (counts.get(hit.path) ?? 0) + 1);
    }
    const twice = [...counts].filter(([, n]) => n > 1).map(([p]) => p);
    assert.ok(twice.length <= concurrency, `refetched ${twice.length} pages: ${twice.join(', ')}`);
    for (const p of twice) assert.ok(fetchedBeforeKill.has(p), `${p} was in flight at the kill`);
    assert.ok(site.hits.length > hitsAtKill, 'the restarted service went on crawling');
  });
});
