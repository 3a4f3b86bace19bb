import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl, { FirecrawlAppV1 } from '@mendable/firecrawl-js';
import type { Document } from '@mendable/firecrawl-js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startTestProxy } from '../fixtures/proxy-server.js';
import { textPdf } from '../fixtures/files/pdf-files.js';
import { site, startService } from '../helpers.js';

/**
 * What Firecrawl's documents say about themselves, as a Firecrawl program reads them through the real SDK (v2
 * and its v1 client) and raw requests: a PDF's page counts, a PDF returned unparsed when no PDF parser is
 * asked for, and `metadata.creditsUsed` by Firecrawl's rule, the same credits the tenant's usage counts.
 */

const PDFS: Record<string, Buffer> = { '/three.pdf': textPdf(3), '/one.pdf': textPdf(1) };

/** Serves PDFS on loopback; answers the base URL. */
async function servePdfs(t: TestContext): Promise<string> {
  const server = createServer((req, res) => {
    const pdf = PDFS[req.url ?? ''];
    if (!pdf) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function setup(t: TestContext, o: { llm?: boolean } = {}) {
  const pdfs = await servePdfs(t);
  const html = await site(t);
  const llm = o.llm ? await startLlmStub() : null;
  if (llm) t.after(() => llm.close());
  const env: Record<string, string> = llm ? { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' } : {};
  const svc = await startService(t, { env });
  const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
  return {
    pdfs,
    page: `${html.url}/blog/backpressure`,
    svc,
    fc,
    v1: new FirecrawlAppV1({ apiKey: 'test', apiUrl: svc.url }),
  };
}

const metaOf = (doc: Document): Record<string, unknown> => (doc.metadata ?? {}) as Record<string, unknown>;

describe('Firecrawl documents: PDF page counts', () => {
  test('a PDF has numPages (pages read), totalPages and its content type, with and without parsers (v2, v1)', async (t) => {
    const { pdfs, fc, v1 } = await setup(t);
    const url = `${pdfs}/three.pdf`;
    for (const parsers of [undefined, ['pdf'], [{ type: 'pdf' as const }]]) {
      const doc = await fc.scrape(url, { formats: ['markdown'], maxAge: 0, ...(parsers ? { parsers } : {}) });
      const m = metaOf(doc);
      assert.equal(m.numPages, 3, JSON.stringify(parsers));
      assert.equal(m.totalPages, 3);
      assert.equal(m.contentType, 'application/pdf');
      assert.equal(m.title, 'Chapter 1');
      assert.match(doc.markdown ?? '', /Chapter 3/);
    }
    const limited = metaOf(await fc.scrape(url, { parsers: [{ type: 'pdf', maxPages: 2 }], maxAge: 0 }));
    assert.equal(limited.numPages, 2, 'the pages read');
    assert.equal(limited.totalPages, 3);
    assert.equal(limited.creditsUsed, 2);

    const old = await v1.scrapeUrl(url, { formats: ['markdown'] });
    assert.ok(old.success, JSON.stringify(old));
    assert.equal(old.metadata?.numPages, 3);
    assert.equal((old.metadata as Record<string, unknown>).totalPages, 3);
  });
});

describe('Firecrawl documents: a PDF unparsed', () => {
  test('parsers: [] answers the PDF as base64 in markdown, html and rawHtml, with no page count or warning', async (t) => {
    const { pdfs, svc, fc, page } = await setup(t);
    const url = `${pdfs}/three.pdf`;
    const doc = await fc.scrape(url, { formats: ['markdown', 'html'], parsers: [], maxAge: 0 });
    assert.ok(doc.markdown?.startsWith('JVBER'), doc.markdown?.slice(0, 40));
    assert.deepEqual(Buffer.from(doc.markdown!, 'base64'), PDFS['/three.pdf']);
    assert.equal(doc.html, doc.markdown);
    const m = metaOf(doc);
    assert.equal(m.numPages, undefined);
    assert.equal(m.contentType, 'application/pdf');
    assert.equal(m.creditsUsed, 1);

    const raw = await svc.post('/v2/scrape', { url, formats: ['rawHtml'], parsers: [] });
    assert.equal(raw.status, 200, JSON.stringify(raw.json));
    assert.equal(raw.json.warning, undefined);
    assert.ok(String((raw.json.data as Document).rawHtml).startsWith('JVBER'));
    // Only "image" names no PDF parser either: the PDF is not parsed.
    const image = await svc.post('/v2/scrape', { url, parsers: ['image'] });
    assert.ok(String((image.json.data as Document).markdown).startsWith('JVBER'));

    // On a web page there is nothing to leave unparsed.
    const html = await fc.scrape(page, { formats: ['markdown'], parsers: [] });
    assert.match(html.markdown ?? '', /backpressure/i);
    assert.equal(metaOf(html).creditsUsed, 1);
  });

  test('v1 parsePDF: false answers the PDF as base64; true parses it', async (t) => {
    const { pdfs, svc, v1 } = await setup(t);
    const url = `${pdfs}/three.pdf`;
    const raw = await svc.post('/v1/scrape', { url, parsePDF: false });
    assert.equal(raw.status, 200, JSON.stringify(raw.json));
    assert.equal(raw.json.warning, undefined);
    const data = raw.json.data as Document;
    assert.ok(String(data.markdown).startsWith('JVBER'));
    assert.equal(metaOf(data).creditsUsed, 1);
    const parsed = await v1.scrapeUrl(url, { formats: ['markdown'], parsePDF: true });
    assert.ok(parsed.success);
    assert.match(parsed.markdown ?? '', /Chapter 2/);
  });
});

describe('Firecrawl documents: creditsUsed', () => {
  test('1 a page, 5 with json, a PDF its pages; batch documents too; the usage credits are their sum', async (t) => {
    const { pdfs, svc, fc, page } = await setup(t, { llm: true });
    const credits: number[] = [];
    const creditsOf = (doc: Document): number => {
      const used = metaOf(doc).creditsUsed as number;
      credits.push(used);
      return used;
    };
    assert.equal(creditsOf(await fc.scrape(page, { formats: ['markdown'] })), 1);
    assert.equal(creditsOf(await fc.scrape(page, { formats: [{ type: 'json', prompt: 'the title' }] })), 5);
    const pdf = await fc.scrape(`${pdfs}/three.pdf`, { parsers: ['pdf'], maxAge: 0 });
    assert.ok(creditsOf(pdf) >= (metaOf(pdf).numPages as number));
    assert.equal(metaOf(pdf).creditsUsed, 3);
    assert.equal(creditsOf(await fc.scrape(`${pdfs}/one.pdf`, { maxAge: 0 })), 1);

    const job = await fc.batchScrape([page, `${pdfs}/three.pdf`], {
      options: { formats: ['markdown'] },
      pollInterval: 1,
    });
    assert.equal(job.status, 'completed');
    const bySource = Object.fromEntries(job.data.map((d) => [metaOf(d).sourceURL, creditsOf(d)]));
    assert.deepEqual(bySource, { [page]: 1, [`${pdfs}/three.pdf`]: 3 });

    const usage = await fetch(`${svc.url}/api/v1/usage`);
    const { total } = (await usage.json()) as { total: { credits: number } };
    assert.equal(
      total.credits,
      credits.reduce((a, b) => a + b, 0),
    );
  });

  test('a page the stealth proxies carried is proxyUsed "stealth" and 4 credits more', async (t) => {
    const stealth = await startTestProxy();
    t.after(() => stealth.kill());
    // The site blocks every request the stealth proxy did not carry (its label in x-test-proxy).
    const server = createServer((req, res) => {
      if (req.url === '/guarded' && req.headers['x-test-proxy'] !== stealth.label)
        return void res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>Forbidden</h1>');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Open</h1><p>A page anyone may read.</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const target = `http://site.test:${(server.address() as AddressInfo).port}`;
    const resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const svc = await startService(t, { resolver, env: { STEALTH_PROXY_URLS: stealth.url } });
    const scrape = async (path: string, proxy: string) => {
      const res = await svc.post('/v2/scrape', { url: target + path, proxy, maxAge: 0 });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      return metaOf(res.json.data as Document);
    };
    const asked = await scrape('/open', 'stealth');
    assert.deepEqual([asked.proxyUsed, asked.creditsUsed], ['stealth', 5]);
    const basic = await scrape('/open', 'auto');
    assert.deepEqual([basic.proxyUsed, basic.creditsUsed], ['basic', 1]);
    const escalated = await scrape('/guarded', 'auto');
    assert.deepEqual([escalated.statusCode, escalated.proxyUsed, escalated.creditsUsed], [200, 'stealth', 5]);
  });
});
