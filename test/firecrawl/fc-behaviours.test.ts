import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl, { SdkError } from '@mendable/firecrawl-js';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startUntrustedSite } from '../fixtures/tls.js';
import { startService } from '../helpers.js';
import { call, json, over, poll, sleep } from '../jobs/http.js';
import type { Json } from '../jobs/http.js';

/**
 * Behaviours a program written against Firecrawl relies on, driven as such a program would: the real SDK
 * (@mendable/firecrawl-js) where it sends the request as given, raw HTTP where it has no method (v1's
 * `/crawl/ongoing`, `/v2/team/activity`) or where the reply's exact body is the point.
 */

async function setup(t: TestContext, site: CrawlSiteOptions = {}) {
  const s = await startCrawlSite(site);
  t.after(() => s.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
  const api = (path: string, method?: string, body?: unknown) => call(svc.url + path, method, body);
  return { site: s, svc, api, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) };
}

/** An assert.rejects validator: the SDK's error with this HTTP status and Firecrawl code. */
const sdkError = (status: number, code: string, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof SdkError, String(err));
  assert.deepEqual([err.status, err.code], [status, code], err.message);
  if (message) assert.match(err.message, message);
  return true;
};

const MS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Firecrawl behaviours programs rely on', () => {
  test('batch scrape keeps each sourceURL as the caller wrote it (v2 SDK, v1)', async (t) => {
    const { site, svc, api, fc } = await setup(t);
    const odd = `${site.url}/?pagewanted=all&et_blog`;
    const plain = `${site.url}/docs/a`;
    const v2 = await fc.batchScrape([odd, plain], { options: { formats: ['markdown'] }, pollInterval: 1 });
    assert.equal(v2.status, 'completed');
    const v2Sources = v2.data.map((d) => d.metadata?.sourceURL).sort();
    assert.deepEqual(v2Sources, [odd, plain].sort());
    const start = json(await api('/v1/batch/scrape', 'POST', { urls: [odd] }));
    const end = json(await poll(`${svc.url}/v1/batch/scrape/${String(start.id)}`, over));
    const [doc] = end.data as { metadata: Json }[];
    assert.equal(doc?.metadata.sourceURL, odd);
  });

  test('GET /crawl/ongoing lists running crawls with ms timestamps and options in its version names (v1, v2)', async (t) => {
    const { site, api } = await setup(t, { pages: 300, delayMs: 200 });
    const sent = { url: `${site.url}/`, sitemap: 'skip', crawlEntireDomain: true, limit: 200 };
    const crawl = json(await api('/v2/crawl', 'POST', sent));
    const urls = Array.from({ length: 50 }, (_, i) => `${site.url}/gen/${i}`);
    const batch = json(await api('/v2/batch/scrape', 'POST', { urls }));
    const listed = async (v: string) => {
      const reply = json(await api(`/${v}/crawl/ongoing`));
      assert.equal(reply.success, true);
      return reply.crawls as Json[];
    };
    const v2 = await listed('v2');
    const mine = v2.find((c) => c.id === crawl.id);
    assert.ok(mine, JSON.stringify(v2));
    assert.equal(mine.url, sent.url);
    assert.equal(typeof mine.teamId, 'string');
    assert.match(String(mine.created_at), MS_ISO);
    assert.ok(Math.abs(Date.parse(String(mine.created_at)) - Date.now()) < 60_000);
    assert.deepEqual(
      [
        (mine.options as Json).sitemap,
        (mine.options as Json).crawlEntireDomain,
        (mine.options as Json).limit,
      ],
      ['skip', true, 200],
    );
    assert.ok(!v2.some((c) => c.id === batch.id), 'a batch scrape is not a crawl');
    const v1 = (await listed('v1')).find((c) => c.id === crawl.id);
    const v1Options = v1?.options as Json;
    assert.deepEqual([v1Options.ignoreSitemap, v1Options.allowBackwardLinks], [true, true]);
    assert.ok(!('sitemap' in v1Options) && !('crawlEntireDomain' in v1Options), 'v1 names on v1');
    json(await api(`/v2/crawl/${String(crawl.id)}`, 'DELETE'));
    for (const v of ['v1', 'v2'])
      assert.ok(!(await listed(v)).some((c) => c.id === crawl.id), `${v}: a cancelled crawl is gone`);
  });

  test('map: a given timeout that runs out is 408 MAP_TIMEOUT "Map timed out" (v2 SDK, v1); enough time is 200', async (t) => {
    const { site, api, fc } = await setup(t, { delayMs: 300 });
    await assert.rejects(fc.map(site.url, { timeout: 1 }), sdkError(408, 'MAP_TIMEOUT', /^Map timed out$/));
    const v1 = await api('/v1/map', 'POST', { url: site.url, timeout: 1 });
    assert.deepEqual(json(v1, 408), { success: false, code: 'MAP_TIMEOUT', error: 'Map timed out' });
    const enough = await fc.map(site.url, { timeout: 60_000, sitemap: 'only' });
    assert.ok(enough.links.length > 0);
  });

  test('TLS: v2 skips verification by default, not with headers or when told; v1 verifies; a failure is 400 SCRAPE_SSL_ERROR', async (t) => {
    const { api, fc } = await setup(t);
    const url = `${await startUntrustedSite(t, 'secure.site.test')}/`;
    const page = await fc.scrape(url);
    assert.match(page.markdown ?? '', /Behind a self-signed certificate/);
    const ssl = sdkError(400, 'SCRAPE_SSL_ERROR', /SSL\/TLS certificate error.*skipTlsVerification: true/);
    await assert.rejects(fc.scrape(url, { skipTlsVerification: false }), ssl);
    await assert.rejects(fc.scrape(url, { headers: { 'x-token': 'secret' } }), ssl);
    const v1 = json(await api('/v1/scrape', 'POST', { url }), 400);
    assert.equal(v1.code, 'SCRAPE_SSL_ERROR');
    assert.match(String(v1.error), /^An SSL\/TLS certificate error occurred/);
    json(await api('/v1/scrape', 'POST', { url, skipTlsVerification: true }));
  });

  test('minAge answers only from the cache, never fetching: a miss or a copy too young is 404 SCRAPE_NO_CACHED_DATA', async (t) => {
    const { site, api, fc } = await setup(t);
    const url = `${site.url}/gen/3`;
    const fetches = () => site.hits.filter((h) => h.path === '/gen/3').length;
    const noData = sdkError(404, 'SCRAPE_NO_CACHED_DATA', /^No cached data is available for this URL/);
    await assert.rejects(fc.scrape(url, { minAge: 1 }), noData);
    assert.equal(fetches(), 0, 'a cache-only miss makes no request');
    const fresh = await fc.scrape(url);
    assert.equal(fresh.metadata?.cacheState, 'miss');
    await sleep(20);
    await assert.rejects(fc.scrape(url, { minAge: 3_600_000 }), noData);
    const hit = await fc.scrape(url, { minAge: 10 });
    assert.equal(hit.metadata?.cacheState, 'hit');
    assert.equal(hit.markdown, fresh.markdown);
    assert.equal(fetches(), 1, 'only the fresh scrape fetched');
    const crawl = json(await api('/v2/crawl', 'POST', { url, scrapeOptions: { minAge: 1 } }), 400);
    assert.match(String(crawl.error), /scrapeOptions\.minAge/);
  });

  test('lockdown answers only from the cache (2-year default maxAge), 5 credits a hit; a miss is 404 SCRAPE_LOCKDOWN_CACHE_MISS', async (t) => {
    const { site, api, fc } = await setup(t);
    const url = `${site.url}/gen/4`;
    const fetches = () => site.hits.filter((h) => h.path === '/gen/4').length;
    const miss = sdkError(
      404,
      'SCRAPE_LOCKDOWN_CACHE_MISS',
      /^No cached data is available for this request in lockdown mode/,
    );
    await assert.rejects(fc.scrape(url, { lockdown: true }), miss);
    assert.equal(fetches(), 0, 'a lockdown miss makes no request');
    await fc.scrape(url);
    const hit = await fc.scrape(url, { lockdown: true });
    assert.deepEqual([hit.metadata?.cacheState, hit.metadata?.creditsUsed], ['hit', 5]);
    assert.equal(fetches(), 1);
    const batch = json(await api('/v2/batch/scrape', 'POST', { urls: [url], lockdown: true }), 400);
    assert.match(String(batch.error), /lockdown/);
  });

  test('GET /v2/team/activity is refused by name, not served', async (t) => {
    const { api } = await setup(t);
    const reply = json(await api('/v2/team/activity'), 404);
    assert.equal(reply.success, false);
    assert.match(String(reply.error), /\/v2\/team\/activity is not served/);
  });
});
