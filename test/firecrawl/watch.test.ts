import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

/**
 * Firecrawl's job watchers over WebSocket, driven by the real SDK: v2's `Watcher` and v1's `crawlUrlAndWatch`
 * (on Node's own global WebSocket, as a browser's).
 */

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const site = await startCrawlSite({ delayMs: 20 });
  t.after(() => site.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  return { site, svc };
}

const crawlOptions = { limit: 6, crawlEntireDomain: true, sitemap: 'skip' as const, maxConcurrency: 1 };

describe('Firecrawl job watchers (WebSocket)', () => {
  test('v2 Watcher: catchup, each document as it is stored, done with the counts', async (t) => {
    const { site, svc } = await setup(t, { API_KEYS: 'k1' });
    const fc = new Firecrawl({ apiKey: 'k1', apiUrl: svc.url });
    const { id } = await fc.startCrawl(`${site.url}/gen/0`, crawlOptions);
    const watcher = fc.watcher(id, { kind: 'crawl' });
    const docs: unknown[] = [];
    watcher.on('document', (d) => docs.push(d));
    const done = new Promise<{ status: string; completed: number }>((resolve, reject) => {
      watcher.on('done', resolve);
      watcher.on('error', reject);
    });
    await watcher.start();
    const end = await done;
    assert.equal(end.status, 'completed');
    assert.equal(end.completed, 6);
    assert.equal(docs.length, 6);
  });

  test('v2 Watcher on a finished batch: the catchup is enough', async (t) => {
    const { site, svc } = await setup(t);
    const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
    const job = await fc.batchScrape([`${site.url}/gen/1`, `${site.url}/gen/2`], { pollInterval: 1 });
    const watcher = fc.watcher(job.id!, { kind: 'batch' });
    const docs: unknown[] = [];
    watcher.on('document', (d) => docs.push(d));
    const done = new Promise<{ status: string }>((resolve) => watcher.on('done', resolve));
    await watcher.start();
    assert.equal((await done).status, 'completed');
    assert.equal(docs.length, 2);
  });

  test('v1 crawlUrlAndWatch: documents, then done from the close frame', async (t) => {
    const { site, svc } = await setup(t);
    const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
    const watcher = await fc.v1.crawlUrlAndWatch(`${site.url}/gen/0`, {
      limit: 6,
      crawlEntireDomain: true,
      ignoreSitemap: true,
      maxConcurrency: 1,
    });
    const docs: unknown[] = [];
    watcher.addEventListener('document', (e) => void docs.push((e as CustomEvent).detail));
    const status = await new Promise<string>((resolve) => {
      watcher.addEventListener('done', (e) => resolve((e as CustomEvent<{ status: string }>).detail.status));
      watcher.addEventListener('error', (e) =>
        resolve(`error: ${JSON.stringify((e as CustomEvent).detail)}`),
      );
    });
    assert.equal(status, 'completed');
    assert.equal(docs.length, 6);
  });

  test('an unknown job ends the watch with an error; a wrong key gets no socket', async (t) => {
    const { svc } = await setup(t, { API_KEYS: 'k1' });
    const id = '00000000-0000-4000-8000-000000000000';
    const unknown = new Firecrawl({ apiKey: 'k1', apiUrl: svc.url }).watcher(id);
    const error = new Promise<{ error: string }>((resolve) => unknown.on('error', resolve));
    await unknown.start();
    assert.match((await error).error, /Job not found/);
    unknown.close(); // else the SDK falls back to polling when the socket closes
    // The key travels as the subprotocol, as the SDK sends it; a wrong one is refused before the upgrade.
    const ws = new WebSocket(`${svc.url.replace(/^http/, 'ws')}/v2/crawl/${id}`, 'nope');
    const refused = await new Promise<boolean>((resolve) => {
      ws.addEventListener('open', () => resolve(false));
      ws.addEventListener('error', () => resolve(true));
    });
    assert.equal(refused, true, 'the upgrade is refused');
    ws.close();
  });
});
