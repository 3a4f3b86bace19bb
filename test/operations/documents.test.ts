import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { chromium } from 'playwright-core';
import { encryptedPdf } from '../fixtures/files/encrypted-pdf.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { docx, pptx, xlsx } from '../fixtures/files/office.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { docOf, startService } from '../helpers.js';

/**
 * PDFs through the page pipeline: fixtures printed by the Chromium the service already uses (`page.pdf()`),
 * served on loopback, scraped like any page.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

const REPORT = `<html><head><title>Quarterly Report</title></head><body>
<h1>Quarterly Report</h1><p>This report covers the third quarter. Revenue grew in every region, and this long
paragraph goes on over several lines, so that the converter has to join the lines back into one paragraph.</p>
<h2>Regions</h2><p>• North grew 12%</p><p>• South grew 8%</p>
<p>See <a href="https://example.com/details">the details page</a> for more.</p>
<h2>Revenue</h2><style>td,th{padding:4px 12px;text-align:left} td.n{text-align:right}</style>
<table><tr><th>Region</th><th>Q3 revenue</th><th>Growth</th></tr>
<tr><td>North</td><td class=n>1,200</td><td class=n>12%</td></tr>
<tr><td style="width:110px">South and the long islands region</td><td class=n>800</td><td class=n>8%</td></tr></table>
<p>After the table, a paragraph of prose that runs across the width of the page and wraps over more than one line.</p>
</body></html>`;
/** A page with no text, only a drawing: its PDF has no text layer, as a scan has not. */
const SCANNED = `<html><body><svg width="400" height="200"><rect width="400" height="200" fill="#888"/></svg></body></html>`;

/** Two pages: the second is left out when a request reads one page. */
const TWO_PAGES = `<html><body><h1>First page</h1><p>Read this page: it is the first of two.</p>
<h1 style="break-before: page">Second page</h1><p>This page is left out when one page is read.</p></body></html>`;

const pdfs: Record<string, Buffer> = {};

async function printPdfs(): Promise<void> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    for (const [name, html] of Object.entries({ report: REPORT, scanned: SCANNED, two: TWO_PAGES })) {
      await page.setContent(html);
      pdfs[name] = await page.pdf({ format: 'A4' });
    }
  } finally {
    await browser.close();
  }
}

/** Serves `files` (path → [content type, bytes]) on loopback; answers the base URL. */
async function serveFiles(t: TestContext, files: Record<string, [string, Buffer]>): Promise<string> {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Serves the PDFs: /report.pdf as application/pdf, /report as octet-stream (the magic bytes decide). */
async function pdfSite(t: TestContext): Promise<string> {
  return serveFiles(t, {
    '/report.pdf': ['application/pdf', pdfs.report!],
    '/report': ['application/octet-stream', pdfs.report!],
    '/scanned.pdf': ['application/pdf', pdfs.scanned!],
    '/two.pdf': ['application/pdf', pdfs.two!],
    '/locked.pdf': ['application/pdf', encryptedPdf()],
    '/broken.pdf': ['application/pdf', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage')],
  });
}

describe('PDF documents', { skip }, () => {
  before(printPdfs);

  test('headings by font size, paragraphs joined across lines, bullets, links; the document metadata', async (t) => {
    const base = await pdfSite(t);
    const svc = await startService(t);
    for (const path of ['/report.pdf', '/report']) {
      const { status, json } = await svc.post('/api/v1/scrape', {
        url: base + path,
        formats: ['markdown', 'links'],
      });
      assert.equal(status, 200, JSON.stringify(json));
      const doc = docOf(json);
      assert.match(doc.markdown ?? '', /^# Quarterly Report$/m);
      assert.match(doc.markdown ?? '', /^## Regions$/m);
      assert.match(
        doc.markdown ?? '',
        /This report covers the third quarter\. Revenue grew in every region, and this long paragraph goes on over several lines, so that the converter has to join the lines back into one paragraph\./,
      );
      assert.match(doc.markdown ?? '', /^[-*] North grew 12%$/m);
      assert.match(
        doc.markdown ?? '',
        /See \[the details page\]\(https:\/\/example\.com\/details\) for more\./,
      );
      // Columns from the layout; a cell wrapped over three lines stays one cell of its row.
      assert.match(
        doc.markdown ?? '',
        /^\| Region \| Q3 revenue \| Growth \|\n\|[- |]+\|\n\| North \| 1,200 \| 12% \|\n\| South and the long islands region \| 800 \| 8% \|$/m,
      );
      assert.match(doc.markdown ?? '', /^After the table, a paragraph of prose that runs across/m);
      assert.deepEqual(doc.links, ['https://example.com/details']);
      assert.equal(doc.metadata.title, 'Quarterly Report');
      assert.equal(doc.metadata.contentType, 'application/pdf');
      assert.equal(doc.metadata.numPages, 1);
      assert.ok(!Number.isNaN(Date.parse(String(doc.metadata.creationDate))));
    }
  });

  test('rawHtml is a 400 for a PDF; a broken or encrypted PDF is a 422 and the service goes on; no text layer is a warning', async (t) => {
    const base = await pdfSite(t);
    const svc = await startService(t);
    const raw = await svc.post('/api/v1/scrape', { url: `${base}/report.pdf`, formats: ['rawHtml'] });
    assert.equal(raw.status, 400);
    assert.match(String(raw.json.error), /rawHtml is not available for a PDF/);
    const broken = await svc.post('/api/v1/scrape', { url: `${base}/broken.pdf` });
    assert.equal(broken.status, 422);
    assert.equal(broken.json.code, 'UNSUPPORTED_CONTENT');
    const locked = await svc.post('/api/v1/scrape', { url: `${base}/locked.pdf` });
    assert.equal(locked.status, 422);
    assert.match(String(locked.json.error), /The PDF is encrypted \(it needs a password\)/);
    const scanned = await svc.post('/api/v1/scrape', { url: `${base}/scanned.pdf` });
    assert.equal(scanned.status, 200);
    const doc = docOf(scanned.json);
    assert.equal(doc.markdown, '');
    assert.match(String(doc.metadata.warning), /no text layer .*OCR is not done/);
    const again = await svc.post('/api/v1/scrape', { url: `${base}/report.pdf` });
    assert.equal(again.status, 200, 'healthy after a broken PDF');
  });

  test("a page limit per request (maxDocumentPages, Firecrawl's parsers) under the server's", async (t) => {
    const base = await pdfSite(t);
    const svc = await startService(t);
    const whole = docOf((await svc.post('/api/v1/scrape', { url: `${base}/two.pdf` })).json);
    assert.match(whole.markdown ?? '', /# Second page/);
    // A document has no page chrome: main content is all of it.
    const main = docOf(
      (await svc.post('/api/v1/scrape', { url: `${base}/two.pdf`, onlyMainContent: true })).json,
    );
    assert.equal(main.markdown, whole.markdown);
    const first = docOf(
      (await svc.post('/api/v1/scrape', { url: `${base}/two.pdf`, maxDocumentPages: 1 })).json,
    );
    assert.doesNotMatch(first.markdown ?? '', /Second page/);
    assert.match(String(first.metadata.warning), /Only the first 1 of 2 pages were read/);
    assert.equal(first.metadata.numPages, 2);

    const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
    const limited = await fc.scrape(`${base}/two.pdf`, {
      formats: ['markdown'],
      parsers: [{ type: 'pdf', maxPages: 1 }],
      maxAge: 0,
    });
    assert.match(limited.markdown ?? '', /# First page/);
    assert.doesNotMatch(limited.markdown ?? '', /Second page/);
    const unknown = await fetch(`${svc.url}/v2/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${base}/two.pdf`, parsers: ['ocr-only'] }),
    });
    assert.equal(unknown.status, 400);
    const refusal = (await unknown.json()) as { error: string; details: { path: unknown[] }[] };
    assert.equal(refusal.error, 'Bad Request', "Firecrawl's answer to a parser it does not know");
    assert.deepEqual(refusal.details[0]?.path, ['parsers', 0]);

    const small = await startService(t, { env: { MAX_DOCUMENT_PAGES: '1' } });
    const capped = docOf(
      (await small.post('/api/v1/scrape', { url: `${base}/two.pdf`, maxDocumentPages: 5 })).json,
    );
    assert.doesNotMatch(capped.markdown ?? '', /Second page/, "the server's limit wins");

    // An uploaded PDF takes the same limit.
    const upload = new FormData();
    upload.append('options', JSON.stringify({ maxDocumentPages: 1 }));
    upload.append('file', new Blob([new Uint8Array(pdfs.two!)]), 'two.pdf');
    const parsed = await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: upload });
    const parsedDoc = docOf(await parsed.json());
    assert.match(parsedDoc.markdown ?? '', /# First page/);
    assert.doesNotMatch(parsedDoc.markdown ?? '', /Second page/);
  });
});

describe('Office documents', () => {
  const officeSite = (t: TestContext): Promise<string> =>
    serveFiles(t, {
      '/prices.docx': ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', docx()],
      '/prices.xlsx': ['application/octet-stream', xlsx()],
      '/roadmap.pptx': ['application/vnd.openxmlformats-officedocument.presentationml.presentation', pptx()],
    });

  test('Word headings and paragraphs, each sheet a table under its name, each slide title and text', async (t) => {
    const base = await officeSite(t);
    const svc = await startService(t);
    const word = docOf((await svc.post('/api/v1/scrape', { url: `${base}/prices.docx` })).json);
    assert.equal(
      word.markdown,
      '# Price list\n\nAll prices are in euros.\n\n## Fruit\n\nApples cost 2 euros a kilo.',
    );
    assert.equal(word.metadata.title, 'Price list 2026');
    assert.equal(word.metadata.author, 'Ada');
    const sheets = docOf((await svc.post('/api/v1/scrape', { url: `${base}/prices.xlsx` })).json);
    assert.match(
      sheets.markdown ?? '',
      /## Prices\n\n\| Item +\| Price +\| +\|\n\|[-| ]+\|\n\| Apple +\| 1\.5 +\| +\|\n\| Pear +\| +\| 9 +\|/,
    );
    assert.match(sheets.markdown ?? '', /## Stock/);
    assert.equal(
      sheets.metadata.contentType,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const slides = docOf((await svc.post('/api/v1/scrape', { url: `${base}/roadmap.pptx` })).json);
    assert.equal(
      slides.markdown,
      '## Roadmap\n\nShip the fleet\n\nThen documents\n\n## Thanks\n\nQuestions?',
    );
    assert.equal(slides.metadata.numPages, 2);
  });
});

describe('uploads: POST /api/v1/parse and /v2/parse', () => {
  test('a Word file uploaded to the seed route and through the Firecrawl SDK; bad uploads are 4xx', async (t) => {
    const svc = await startService(t, { env: { MAX_RESPONSE_BYTES: '200000' } });
    const form = new FormData();
    form.append('options', JSON.stringify({ formats: ['markdown', 'html'] }));
    form.append('file', new Blob([new Uint8Array(docx())]), 'prices.docx');
    const res = await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: form });
    const json = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 200, JSON.stringify(json));
    const doc = docOf(json);
    assert.match(doc.markdown ?? '', /^# Price list/);
    assert.match(doc.html ?? '', /<h1>Price list<\/h1>/);
    assert.equal(doc.metadata.title, 'Price list 2026');

    const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
    const parsed = await fc.parse({ filename: 'roadmap.pptx', data: pptx() }, { formats: ['markdown'] });
    assert.match(parsed.markdown ?? '', /^## Roadmap/);
    assert.equal(parsed.metadata?.sourceURL, 'roadmap.pptx');

    const unknownOption = new FormData();
    unknownOption.append('options', JSON.stringify({ formatz: ['markdown'] }));
    unknownOption.append('file', new Blob([new Uint8Array(docx())]), 'prices.docx');
    const bad = await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: unknownOption });
    assert.equal(bad.status, 400);
    assert.match(String(((await bad.json()) as { error: string }).error), /unknown field 'formatz'/);
    const big = new FormData();
    big.append('file', new Blob([new Uint8Array(300_000).fill(97)]), 'big.txt');
    assert.equal((await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: big })).status, 413);
    const none = await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: new FormData() });
    assert.equal(none.status, 400);
    // Options about fetching a page mean nothing for an upload: refused, never silently ignored.
    const fetchOnly = new FormData();
    fetchOnly.append('options', JSON.stringify({ waitFor: 1000 }));
    fetchOnly.append('file', new Blob([new Uint8Array(docx())]), 'prices.docx');
    const refused = await fetch(`${svc.url}/v2/parse`, { method: 'POST', body: fetchOnly });
    assert.equal(refused.status, 400);
    assert.match(String(((await refused.json()) as { error: string }).error), /^options\.waitFor: /);
  });
});

describe('documents everywhere a page goes', () => {
  test('a crawl follows links to documents and converts them; map lists them; CSS extraction refuses them', async (t) => {
    const base = await serveFiles(t, {
      '/': [
        'text/html',
        Buffer.from(
          '<title>Files</title><main><h1>Files</h1><p><a href="/prices.docx">Prices</a> and <a href="/roadmap.pptx">the roadmap</a>.</p></main>',
        ),
      ],
      '/prices.docx': ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', docx()],
      '/roadmap.pptx': ['application/octet-stream', pptx()],
    });
    const svc = await startService(t, { env: { CRAWL_MIN_DELAY_MS: '0' } });
    const crawl = await svc.post('/api/v1/crawl', { url: `${base}/`, limit: 5 });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.json));
    const pages = crawl.json.data as { url: string; markdown?: string }[];
    const byPath = new Map(pages.map((p) => [new URL(p.url).pathname, p.markdown ?? '']));
    assert.match(byPath.get('/prices.docx') ?? '', /^# Price list/);
    assert.match(byPath.get('/roadmap.pptx') ?? '', /^## Roadmap/);
    const map = await svc.post('/api/v1/map', { url: `${base}/` });
    assert.deepEqual((map.json.links as string[]).map((l) => new URL(l).pathname).sort(), [
      '/',
      '/prices.docx',
      '/roadmap.pptx',
    ]);
    const css = await svc.post('/api/v1/extract', {
      urls: [`${base}/prices.docx`],
      mode: 'css',
      selectors: { title: 'h1' },
    });
    const item = (css.json.results as { success: boolean; error?: string }[])[0]!;
    assert.equal(item.success, false);
    assert.match(String(item.error), /CSS selectors do not apply to a DOCX file/);
  });

  test('batch scrape, search results and LLM extraction read documents as pages', async (t) => {
    const base = await serveFiles(t, {
      '/prices.docx': ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', docx()],
      '/roadmap.pptx': ['application/octet-stream', pptx()],
    });
    const search = await startSearchStub();
    t.after(() => search.close());
    search.hits = [{ title: 'Price list', url: `${base}/prices.docx`, snippet: 'Prices in euros.' }];
    const llm = await startLlmStub();
    t.after(() => llm.close());
    llm.reply = () => ({ text: JSON.stringify({ apple: 2 }) });
    const svc = await startService(t, {
      env: { SEARXNG_URL: `${search.url}/searxng`, CRAWL_MIN_DELAY_MS: '0' },
    });
    const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
    const batch = await fc.batchScrape([`${base}/prices.docx`, `${base}/roadmap.pptx`], {
      options: { formats: ['markdown'] },
      pollInterval: 1,
    });
    assert.equal(batch.status, 'completed');
    const markdowns = batch.data.map((d) => d.markdown ?? '').sort();
    assert.match(markdowns[0]!, /^# Price list/);
    assert.match(markdowns[1]!, /^## Roadmap/);

    const found = await svc.post('/api/v1/search', {
      query: 'price list',
      scrapeResults: true,
      scrapeOptions: { formats: ['markdown'] },
    });
    assert.equal(found.status, 200, JSON.stringify(found.json));
    const hit = (found.json.data as { content?: { markdown?: string } }[])[0]!;
    assert.match(hit.content?.markdown ?? '', /Apples cost 2 euros a kilo\./);

    const extracted = await svc.post('/api/v1/extract', {
      urls: [`${base}/prices.docx`],
      mode: 'llm',
      prompt: 'What does an apple cost?',
      llmBaseUrl: llm.url,
      llmApiKey: 'sk-test',
    });
    assert.equal(extracted.status, 200, JSON.stringify(extracted.json));
    assert.match(JSON.stringify(llm.requests.at(-1)!.body), /Apples cost 2 euros a kilo/);
  });
});
