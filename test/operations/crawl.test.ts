import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSite, CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';

interface Page {
  url: string;
  title: string;
  markdown?: string;
  metadata: Record<string, unknown>;
}

async function setup(t: TestContext, options: CrawlSiteOptions = {}, env: Record<string, string> = {}) {
  const site = await startCrawlSite(options);
  t.after(() => site.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0', ...env } });
  return { site, svc };
}

async function crawl(svc: Service, site: CrawlSite, body: Record<string, unknown>): Promise<string[]> {
  const { status, json } = await svc.post('/api/v1/crawl', { formats: [], ...body });
  assert.equal(status, 200, JSON.stringify(json));
  return (json.data as Page[]).map((p) => p.url.replace(site.url, ''));
}

describe('POST /api/v1/crawl', () => {
  test('defaults: BFS from the start URL, sitemap seeds, depth 2, robots obeyed, duplicates fetched once', async (t) => {
    const { site, svc } = await setup(t, { pages: 63 });
    const { json } = await svc.post('/api/v1/crawl', { url: site.url });
    const data = json.data as Page[];
    const paths = data.map((p) => p.url.replace(site.url, ''));
    assert.equal(paths[0], '/');
    for (const p of ['/gen/0', '/orphan/1', '/orphan/3', '/docs/a', '/gen/1', '/gen/2', '/docs/b'])
      assert.ok(paths.includes(p), p);
    // /gen/0 is at depth 1 (linked from home), /gen/1 at 2, /gen/3 would be 3.
    assert.ok(!paths.includes('/gen/3'), 'maxDepth 2 by default');
    assert.ok(paths.length <= 100);
    assert.equal(new Set(paths).size, paths.length, 'no page twice');
    assert.ok(!site.paths().some((p) => p.startsWith('/private/')), 'robots Disallow respected');
    assert.ok(!site.paths().some((p) => p.includes('utm_source')), 'tracking duplicates not fetched');
    assert.equal(site.paths().filter((p) => p === '/gen/0').length, 1);
    assert.ok(!site.hits.some((h) => h.host === 'external.example'));
    // Crawl result pages: markdown by default and the metadata subset of a crawl page.
    const first = data[0]!;
    assert.match(first.markdown!, /^# Home/);
    assert.deepEqual(Object.keys(first.metadata).sort(), [
      'contentType',
      'readingTime',
      'statusCode',
      'title',
      'url',
      'wordCount',
    ]);
    assert.deepEqual(json.errors, []);
  });

  test('limit and maxDepth', async (t) => {
    const { site, svc } = await setup(t, { pages: 63 });
    const gen = { ignoreSitemap: true, allowBackwardLinks: true, includePaths: ['/gen/*'] };
    const limited = await crawl(svc, site, { url: `${site.url}/gen/0`, limit: 5, ...gen });
    assert.deepEqual(limited, ['/gen/0', '/gen/1', '/gen/2', '/gen/3', '/gen/4']);
    const shallow = await crawl(svc, site, { url: `${site.url}/gen/0`, maxDepth: 1, ...gen });
    assert.deepEqual(shallow.sort(), ['/gen/0', '/gen/1', '/gen/2']);
    const only = await crawl(svc, site, { url: `${site.url}/gen/0`, maxDepth: 0, ...gen });
    assert.deepEqual(only, ['/gen/0']);
  });

  test('includePaths and excludePaths globs match the URL path', async (t) => {
    const { site, svc } = await setup(t);
    const docs = await crawl(svc, site, { url: site.url, includePaths: ['/docs/**'], ignoreSitemap: true });
    assert.deepEqual(docs.sort(), ['/', '/docs/a', '/docs/b'], 'the start URL is always crawled');
    const noGen = await crawl(svc, site, {
      url: site.url,
      excludePaths: ['/gen/*', '/list'],
      ignoreSitemap: true,
    });
    assert.ok(!noGen.some((p) => p.startsWith('/gen/') || p.startsWith('/list')));
    assert.ok(noGen.includes('/docs/a'));
  });

  test('allowBackwardLinks and allowExternalLinks', async (t) => {
    const { site, svc } = await setup(t);
    const under = await crawl(svc, site, { url: `${site.url}/docs/`, ignoreSitemap: true });
    assert.deepEqual(under.sort(), ['/docs/', '/docs/a', '/docs/b'], 'only URLs under the start path');
    const leaf = await crawl(svc, site, { url: `${site.url}/docs/a`, ignoreSitemap: true });
    assert.deepEqual(leaf, ['/docs/a'], 'a sibling is not under /docs/a');
    const back = await crawl(svc, site, {
      url: `${site.url}/docs/`,
      ignoreSitemap: true,
      allowBackwardLinks: true,
      maxDepth: 1,
    });
    assert.ok(back.includes('/blog/x'));
    const internal = await crawl(svc, site, { url: site.url, ignoreSitemap: true, maxDepth: 1 });
    assert.ok(!internal.some((p) => p.includes('blog.site.test')));
    const external = await crawl(svc, site, {
      url: site.url,
      ignoreSitemap: true,
      maxDepth: 1,
      allowExternalLinks: true,
    });
    assert.ok(external.includes(`http://blog.site.test:${site.port}/`));
  });

  test('pagination is followed past maxDepth up to maxPaginationPages, and not at all when disabled', async (t) => {
    const { site, svc } = await setup(t);
    const paged = await crawl(svc, site, {
      url: `${site.url}/list?page=1`,
      maxDepth: 0,
      ignoreSitemap: true,
    });
    assert.equal(paged.length, 12, 'all 12 listing pages despite maxDepth 0');
    const capped = await crawl(svc, site, {
      url: `${site.url}/list?page=1`,
      maxDepth: 0,
      maxPaginationPages: 3,
      ignoreSitemap: true,
    });
    assert.deepEqual(capped, ['/list?page=1', '/list?page=2', '/list?page=3', '/list?page=4']);
    const off = await crawl(svc, site, {
      url: `${site.url}/list?page=1`,
      maxDepth: 0,
      detectPagination: false,
      ignoreSitemap: true,
    });
    assert.deepEqual(off, ['/list?page=1']);
    const headOnly = await crawl(svc, site, {
      url: `${site.url}/series?part=1`,
      maxDepth: 0,
      ignoreSitemap: true,
    });
    assert.deepEqual(
      headOnly,
      ['/series?part=1', '/series?part=2', '/series?part=3', '/series?part=4'],
      '<link rel="next"> in <head> is followed',
    );
  });

  test('crawler traps end at maxDepth', async (t) => {
    const { site, svc } = await setup(t);
    const days = await crawl(svc, site, {
      url: `${site.url}/day/1`,
      maxDepth: 5,
      ignoreSitemap: true,
      allowBackwardLinks: true,
    });
    assert.deepEqual(days, ['/day/1', '/day/2', '/day/3', '/day/4', '/day/5', '/day/6']);
  });

  test('robots Crawl-delay spaces requests to the host', async (t) => {
    const { site, svc } = await setup(t, { crawlDelay: 0.3 });
    await crawl(svc, site, {
      url: `${site.url}/gen/0`,
      limit: 4,
      ignoreSitemap: true,
      useParallel: true,
      allowBackwardLinks: true,
      includePaths: ['/gen/*'],
    });
    const pages = site.hits.filter((h) => h.path.startsWith('/gen/'));
    assert.equal(pages.length, 4);
    for (let i = 1; i < pages.length; i++) {
      const gap = pages[i]!.at - pages[i - 1]!.at;
      assert.ok(gap >= 280, `request ${i} came ${gap} ms after the previous one`);
    }
  });

  test('useParallel fetches several pages at once; sequential fetches one at a time', async (t) => {
    const { site, svc } = await setup(t, { pages: 63 });
    const gen = {
      ignoreSitemap: true,
      allowBackwardLinks: true,
      includePaths: ['/gen/*'],
      maxDepth: 5,
      limit: 20,
    };
    const parallel = await crawl(svc, site, { url: `${site.url}/gen/0`, useParallel: true, ...gen });
    assert.equal(parallel.length, 20);
    const sequential = await crawl(svc, site, { url: `${site.url}/gen/0`, ...gen });
    const numbers = sequential.map((p) => Number(p.split('/')[2]));
    assert.deepEqual(
      numbers,
      Array.from({ length: 20 }, (_, i) => i),
      'sequential crawl is breadth-first',
    );
    assert.equal(new Set(parallel).size, 20);
    assert.ok(parallel.every((p) => /^\/gen\/\d+$/.test(p)));
  });

  test('scrape options apply to each page; failing pages are reported, not fatal', async (t) => {
    const { site, svc } = await setup(t);
    const { json } = await svc.post('/api/v1/crawl', {
      url: `${site.url}/docs/`,
      formats: ['markdown', 'links'],
      onlyMainContent: true,
      excludeTags: ['a'],
      ignoreSitemap: true,
    });
    const pages = json.data as (Page & { links: string[] })[];
    assert.equal(pages.length, 3);
    assert.ok(pages.every((p) => Array.isArray(p.links) && !/\]\(/.test(p.markdown!)));
    const broken = await svc.post('/api/v1/crawl', { url: `${site.url}/gen/9999`, ignoreSitemap: true });
    assert.equal((broken.json.data as Page[])[0]!.metadata.statusCode, 404);
  });

  test('bad input is a 400 before anything is fetched', async (t) => {
    const { site, svc } = await setup(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: 'ftp://site.test/' }, /url scheme/],
      [{ url: site.url, limit: 0 }, /limit must be >= 1/],
      [{ url: site.url, limit: -5 }, /limit must be >= 1/],
      [{ url: site.url, limit: 10001 }, /limit must be <= 10000/],
      [{ url: site.url, maxDepth: 101 }, /maxDepth must be <= 100/],
      [{ url: site.url, maxPaginationPages: -1 }, /maxPaginationPages/],
      [{ url: site.url, includePaths: 'docs' }, /includePaths must be array/],
      [{ url: site.url, engine: 'http', screenshot: true }, /screenshot needs the browser engine/],
      [{ url: site.url, depth: 3 }, /unknown field 'depth'/],
    ];
    for (const [body, message] of cases) {
      for (const path of ['/api/v1/crawl', '/api/v1/crawl/stream']) {
        const res = await svc.post(path, body);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
        assert.match(res.json.error as string, message);
      }
    }
    assert.deepEqual(site.hits, []);
  });

  test('CRAWL_MAX_PAGES lowers the limit bound', async (t) => {
    const { site, svc } = await setup(t, {}, { CRAWL_MAX_PAGES: '10' });
    const res = await svc.post('/api/v1/crawl', { url: site.url, limit: 11 });
    assert.equal(res.status, 400);
    assert.match(res.json.error as string, /limit must be <= 10 on this server/);
  });
});
