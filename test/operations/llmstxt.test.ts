import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver, startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSiteOptions } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';

interface LlmsTxt {
  title: string;
  summary: string;
  entries: { title: string; url: string; description: string }[];
}

/** Parses llms.txt by the llmstxt.org structure: H1 title, blockquote summary, H2 sections of link lists. */
function parseLlmsTxt(text: string): LlmsTxt {
  const lines = text.split('\n');
  assert.match(lines[0]!, /^# \S/, 'starts with an H1 title');
  const summary = lines.find((l) => l.startsWith('> '));
  assert.ok(summary, 'has a blockquote summary');
  const entries = lines
    .filter((l) => l.startsWith('- '))
    .map((l) => {
      const m = /^- \[([^\]]+)\]\((https?:\/\/[^)\s]+)\)(?:: (.+))?$/.exec(l);
      assert.ok(m, `list item follows "- [title](url): description": ${l}`);
      return { title: m[1]!, url: m[2]!, description: m[3] ?? '' };
    });
  assert.ok(
    lines.some((l) => /^## \S/.test(l)),
    'has an H2 section',
  );
  return { title: lines[0]!.slice(2), summary: summary.slice(2), entries };
}

async function setup(t: TestContext, options: CrawlSiteOptions = {}) {
  const site = await startCrawlSite(options);
  t.after(() => site.close());
  const llm = await startLlmStub();
  t.after(() => llm.close());
  const svc = await startService(t, { resolver: fixtureResolver, env: { CRAWL_MIN_DELAY_MS: '0' } });
  return { site, llm, svc };
}

describe('POST /api/v1/llmstxt', () => {
  test('defaults: sitemap + links discovery, 20 pages, llms.txt structure, full text under headings', async (t) => {
    const { site, svc } = await setup(t, { pages: 63 });
    const { status, json } = await svc.post('/api/v1/llmstxt', { url: site.url });
    assert.equal(status, 200, JSON.stringify(json));
    const parsed = parseLlmsTxt(json.llmstxt as string);
    assert.equal(parsed.title, 'Home');
    // 22 URLs are discovered; 3 are robots-disallowed, so 19 are processed (under the default of 20).
    assert.equal(json.urlsDiscovered, 22);
    assert.equal(json.urlsProcessed, 19);
    assert.equal(parsed.entries.length, 19);
    assert.ok(
      !parsed.entries.some((e) => e.url.includes('/private/')),
      'robots-disallowed pages are not scraped',
    );
    assert.ok(!site.paths().some((p) => p.startsWith('/private/')));
    const firstOther = parsed.entries.findIndex((e) => !e.url.startsWith(site.url));
    assert.ok(firstOther > 0, 'subdomain pages are included');
    assert.ok(
      parsed.entries.slice(firstOther).every((e) => !e.url.startsWith(site.url)),
      'same-host pages first',
    );
    assert.ok(
      parsed.entries.some((e) => e.url.endsWith('/orphan/1')),
      'sitemap-only pages are found',
    );
    const home = parsed.entries.find((e) => e.url === `${site.url}/`)!;
    assert.match(
      home.description,
      /^This is Home, a page of the generated test site/,
      'first sentence when no meta description',
    );
    const full = json.llmsFulltxt as string;
    for (const entry of parsed.entries) assert.ok(full.includes(`URL: ${entry.url}`), entry.url);
    assert.match(full, /# Docs A\n\nURL: http:\/\/site\.test:\d+\/docs\/a\n\nThis is Docs A/);
  });

  test('maxUrls, showFullText, ignoreSitemap, includeSubdomains', async (t) => {
    const { site, svc } = await setup(t);
    const three = await svc.post('/api/v1/llmstxt', { url: site.url, maxUrls: 3, showFullText: false });
    assert.equal(parseLlmsTxt(three.json.llmstxt as string).entries.length, 3);
    assert.equal(three.json.llmsFulltxt, '');
    assert.equal(three.json.urlsProcessed, 3);
    const noSitemap = await svc.post('/api/v1/llmstxt', { url: site.url, ignoreSitemap: true, maxUrls: 100 });
    assert.ok(!(noSitemap.json.llmstxt as string).includes('/orphan/'));
    const withSub = await svc.post('/api/v1/llmstxt', { url: site.url, maxUrls: 100 });
    const urls = parseLlmsTxt(withSub.json.llmstxt as string).entries.map((e) => e.url);
    assert.ok(
      urls.some((u) => u.includes('blog.site.test')),
      'subdomain pages included by default',
    );
    assert.ok(
      urls.indexOf(urls.find((u) => u.includes('blog.site.test'))!) > urls.indexOf(`${site.url}/docs/a`),
      'after same-host pages',
    );
    const noSub = await svc.post('/api/v1/llmstxt', {
      url: site.url,
      maxUrls: 100,
      includeSubdomains: false,
    });
    assert.ok(!(noSub.json.llmstxt as string).includes('blog.site.test'));
  });

  test('a page that fails does not end the scraping: with one scrape at a time, a 404 first', async (t) => {
    const { site, svc } = await setup(t, { missing: ['/'] });
    const { status, json } = await svc.post('/api/v1/llmstxt', {
      url: site.url,
      maxConcurrentScrapes: 1,
      includeSubdomains: false,
    });
    assert.equal(status, 200, JSON.stringify(json));
    const scraped = site.hits.filter((h) => !/robots|sitemap/.test(h.path)).map((h) => h.path);
    const entries = parseLlmsTxt(json.llmstxt as string).entries;
    assert.ok(
      entries.length >= 4,
      `${entries.length} pages listed after the failing one: ${scraped.join(' ')}`,
    );
    assert.equal(json.urlsProcessed, entries.length);
    assert.ok(!entries.some((e) => e.url === `${site.url}/`), 'the 404 page is left out');
  });

  test('maxConcurrentScrapes bounds the scrapes in flight at the site', async (t) => {
    const { site, svc } = await setup(t, { delayMs: 100 });
    const { json } = await svc.post('/api/v1/llmstxt', {
      url: site.url,
      ignoreSitemap: true,
      maxUrls: 8,
      maxConcurrentScrapes: 2,
    });
    assert.equal(json.urlsProcessed, 8);
    assert.ok(site.maxRepeatInFlight() <= 2, `saw ${site.maxRepeatInFlight()} at once`);
    assert.equal(site.maxRepeatInFlight(), 2);
  });

  test('with an LLM endpoint, the LLM writes the descriptions; if it fails, meta descriptions stay', async (t) => {
    const { site, llm, svc } = await setup(t);
    llm.reply = (req) => {
      const input = String(
        (req.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content,
      );
      const urls = [...input.matchAll(/^URL: (\S+)$/gm)].map((m) => m[1]!);
      return {
        text: JSON.stringify({
          descriptions: urls.map((url) => ({ url, description: `LLM line for ${new URL(url).pathname}` })),
        }),
      };
    };
    const described = await svc.post('/api/v1/llmstxt', {
      url: site.url,
      maxUrls: 5,
      llmBaseUrl: llm.url,
      llmApiKey: 'k',
    });
    const entries = parseLlmsTxt(described.json.llmstxt as string).entries;
    assert.ok(
      entries.every((e) => e.description === `LLM line for ${new URL(e.url).pathname}`),
      JSON.stringify(entries),
    );
    assert.equal(llm.requests[0]!.headers.authorization, 'Bearer k');
    llm.reply = () => ({ status: 500 });
    const fallback = await svc.post('/api/v1/llmstxt', { url: site.url, maxUrls: 5, llmBaseUrl: llm.url });
    assert.equal(fallback.status, 200);
    assert.ok(
      parseLlmsTxt(fallback.json.llmstxt as string).entries.every((e) =>
        e.description.startsWith('This is '),
      ),
    );
  });

  test('bad input is a 400 before anything is fetched', async (t) => {
    const { site, svc } = await setup(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /missing required field 'url'/],
      [{ url: 'file:///etc' }, /url scheme/],
      [{ url: site.url, maxUrls: 501 }, /maxUrls must be <= 500/],
      [{ url: site.url, maxUrls: 0 }, /maxUrls must be >= 1/],
      [{ url: site.url, maxConcurrentScrapes: 0 }, /maxConcurrentScrapes must be >= 1/],
      [{ url: site.url, llmBaseUrl: 'nope' }, /llmBaseUrl must be an absolute/],
      [{ url: site.url, llmApiKey: 'k' }, /llmApiKey needs llmBaseUrl/],
    ];
    for (const [body, message] of cases) {
      const res = await svc.post('/api/v1/llmstxt', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json.error as string, message);
    }
    assert.deepEqual(site.hits, []);
  });
});
