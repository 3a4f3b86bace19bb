import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

async function setup(t: TestContext, options: CrawlSiteOptions = {}) {
  const site = await startCrawlSite(options);
  t.after(() => site.close());
  const svc = await startService(t, { resolver: fixtureResolver });
  const map = async (body: Record<string, unknown>): Promise<string[]> => {
    const { status, json } = await svc.post('/api/v1/map', { url: site.url, ...body });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.success, true);
    return json.links as string[];
  };
  return { site, svc, map };
}

describe('POST /api/v1/map', () => {
  test('defaults: sitemap index (gzipped child) plus in-page links, subdomains included, absolute and unique', async (t) => {
    const { site, map } = await setup(t);
    const links = await map({});
    assert.equal(links[0], `${site.url}/`);
    for (const path of [
      '/orphan/1',
      '/orphan/2',
      '/orphan/3',
      '/gen/0',
      '/docs/a',
      '/blog/x',
      '/list?page=1',
    ]) {
      assert.ok(links.includes(site.url + path), path);
    }
    assert.ok(links.includes(`http://blog.site.test:${site.port}/`), 'subdomain included by default');
    assert.ok(links.every((l) => /^https?:\/\//.test(l)));
    assert.equal(new Set(links).size, links.length);
    assert.ok(!links.some((l) => l.includes('utm_source') || l.includes('#')), 'duplicates normalized away');
    assert.ok(!links.some((l) => l.includes('external.example')), 'other sites are left out');
    assert.ok(
      !site.paths().some((p) => p.startsWith('/private/')),
      'robots-disallowed pages are not fetched',
    );
  });

  test('includeSubdomains false keeps the start host only', async (t) => {
    const { map } = await setup(t);
    const links = await map({ includeSubdomains: false });
    assert.ok(!links.some((l) => l.includes('blog.site.test')));
  });

  test('ignoreSitemap uses in-page links only', async (t) => {
    const { site, map } = await setup(t);
    const links = await map({ ignoreSitemap: true });
    assert.ok(!links.some((l) => l.includes('/orphan/')));
    assert.ok(links.includes(`${site.url}/gen/0`));
    assert.ok(!site.paths().some((p) => p.includes('sitemap')));
  });

  test('search keeps URLs whose path contains the keyword; limit cuts the list', async (t) => {
    const { site, map } = await setup(t);
    assert.deepEqual((await map({ search: 'ORPHAN' })).sort(), [
      `${site.url}/orphan/1`,
      `${site.url}/orphan/2`,
      `${site.url}/orphan/3`,
    ]);
    assert.equal((await map({ limit: 3 })).length, 3);
  });

  test('a thin sitemap triggers a shallow link crawl', async (t) => {
    const { site, map } = await setup(t, { bare: true });
    const links = await map({});
    assert.ok(links.includes(`${site.url}/gen/1`), 'found on a page linked from the start page');
    assert.ok(links.includes(`${site.url}/list?page=2`));
  });

  test('bad input is a 400; Firecrawl SDK fields are accepted', async (t) => {
    const { site, svc } = await setup(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: site.url, limit: 100001 }, /limit must be <= 100000/],
      [{ url: site.url, limit: 0 }, /limit must be >= 1/],
      [{ url: 'mailto:a@b.c' }, /url scheme/],
      [{ url: site.url, search: '' }, /search/],
      [{ url: site.url, formats: ['markdown'] }, /unknown field 'formats'/],
      [{ url: site.url, engine: 'browser' }, /unknown field 'engine'/],
    ];
    for (const [body, message] of cases) {
      const res = await svc.post('/api/v1/map', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json.error as string, message);
    }
    const sdk = await svc.post('/api/v1/map', { url: site.url, origin: 'js-sdk@1.29.3', limit: 2 });
    assert.equal(sdk.status, 200);
  });
});
