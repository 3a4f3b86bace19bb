import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import type { BrandingProfile, PdfPageBlocks } from '@mendable/firecrawl-js';
import { reportPdf, startBrandSite } from '../fixtures/sites/brand-site.js';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';

/**
 * The branding format (computed styles in real Chromium) and a PDF's `pages` and `blocks` (its text layer),
 * through the native API, Firecrawl's /v2/scrape and the real SDK, against a loopback site with a known
 * palette and a two-page PDF with known blocks.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip)
  console.warn(
    `\n!!! BRANDING TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh (apt-get install chromium).\n`,
  );

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const site = await startBrandSite();
  t.after(() => site.close());
  const svc = await startService(t, { env });
  return { site, svc, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) };
}

const data = async (svc: Service, path: string, body: unknown) => {
  const res = await svc.post(path, body);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json.data as Record<string, unknown>;
};

describe('branding format', { skip }, () => {
  test('a light page: scheme, palette, fonts, primary button and logo (/v2/scrape and the SDK)', async (t) => {
    const { site, svc, fc } = await setup(t);
    const doc = await data(svc, '/v2/scrape', { url: `${site.url}/`, formats: ['branding'] });
    const branding = doc.branding as BrandingProfile;
    assert.equal(branding.colorScheme, 'light');
    assert.equal(branding.brandName, 'Acme');
    // Colours are #RRGGBB in upper case.
    assert.deepEqual(
      {
        primary: branding.colors?.primary,
        link: branding.colors?.link,
        background: branding.colors?.background,
        textPrimary: branding.colors?.textPrimary,
        textSecondary: branding.colors?.textSecondary,
      },
      {
        primary: '#FF5A1F',
        link: '#FF5A1F',
        background: '#FFFFFF',
        textPrimary: '#1F2937',
        textSecondary: '#6B7280',
      },
    );
    assert.deepEqual(
      branding.fonts?.map((f) => f.family),
      ['Inter', 'Poppins', 'JetBrains Mono'],
    );
    assert.deepEqual(branding.typography?.fontFamilies, {
      primary: 'Inter',
      heading: 'Poppins',
      code: 'JetBrains Mono',
    });
    assert.deepEqual(branding.typography?.fontStacks?.primary, [
      'Inter',
      'Helvetica Neue',
      'Arial',
      'sans-serif',
    ]);
    assert.deepEqual(branding.typography?.fontSizes, { h1: '48px', h2: '32px', h3: '24px', body: '16px' });
    assert.deepEqual(branding.components?.buttonPrimary, {
      background: '#FF5A1F',
      textColor: '#FFFFFF',
      borderColor: '#FF5A1F',
      borderRadius: '8px',
    });
    assert.equal(
      branding.components?.buttonSecondary?.background,
      '#E5E7EB',
      'the grey button is not primary',
    );
    assert.equal(branding.logo, `${site.url}/logo.png`);
    assert.deepEqual(branding.images, {
      logo: `${site.url}/logo.png`,
      favicon: `${site.url}/favicon.png`,
      ogImage: `${site.url}/og.png`,
    });
    assert.equal(doc.markdown, undefined, 'only the formats asked for');

    const viaSdk = await fc.scrape(`${site.url}/`, { formats: ['branding', 'markdown'] });
    assert.equal(viaSdk.branding?.colors?.primary, '#FF5A1F');
    assert.match(viaSdk.markdown ?? '', /Acme gives every team the tools/);
    const asObject = await fc.scrape(`${site.url}/`, { formats: [{ type: 'branding' }] });
    assert.deepEqual(asObject.branding?.components?.buttonPrimary, branding.components?.buttonPrimary);
  });

  test('a dark page is dark; the native API asks for branding as a format too', async (t) => {
    const { site, svc } = await setup(t);
    const doc = await data(svc, '/api/v1/scrape', {
      url: `${site.url}/dark`,
      formats: ['markdown', 'branding'],
    });
    const branding = doc.branding as BrandingProfile;
    assert.equal(branding.colorScheme, 'dark');
    assert.equal(branding.brandName, 'Night Owl', 'og:site_name');
    assert.equal(branding.colors?.primary, '#7C3AED');
    assert.equal(branding.colors?.background, '#0B0F19');
    assert.equal(branding.logo, null, 'no logo and no icon');
    assert.match(String(doc.markdown), /# Work at night/);
    assert.match(
      String((doc.metadata as Record<string, unknown>).detectionReason),
      /browser required by branding/,
    );
  });
});

describe('branding needs the browser', () => {
  test('engine http is a 400 naming the format; without Chromium, a 503 naming it', async (t) => {
    const { site, svc } = await setup(t);
    const http = await svc.post('/api/v1/scrape', {
      url: `${site.url}/`,
      formats: ['branding'],
      engine: 'http',
    });
    assert.equal(http.status, 400);
    assert.match(String(http.json.error), /branding needs the browser engine/);
    const none = await startService(t, { env: { CHROMIUM_PATH: '/nonexistent/chromium' } });
    for (const path of ['/api/v1/scrape', '/v2/scrape']) {
      const res = await none.post(path, { url: `${site.url}/`, formats: ['branding'] });
      assert.equal(res.status, 503, path);
      assert.match(String(res.json.error), /branding needs the browser engine/, path);
    }
  });
});

/** Checks a page's blocks: types, bboxes within the page, reading order 0..n-1, spans into the page's Markdown. */
function checkBlocks(page: PdfPageBlocks, markdown: string): void {
  assert.equal(page.status, 'ok');
  assert.deepEqual([page.width, page.height], [612, 792]);
  page.items.forEach((item, i) => {
    assert.equal(item.readingOrder, i);
    assert.equal(item.source, 'text-layer');
    assert.deepEqual(item.confidence, { layout: null, ocr: null });
    const [x0, y0, x1, y1] = item.bbox!;
    assert.ok(0 <= x0 && x0 < x1 && x1 <= 612 && 0 <= y0 && y0 < y1 && y1 <= 792, `bbox ${item.bbox}`);
    const [start, end] = item.markdownSpan!;
    assert.equal(markdown.slice(start, end), item.content);
  });
  const tops = page.items.map((item) => item.bbox![1]);
  assert.deepEqual(
    tops,
    [...tops].sort((a, b) => a - b),
    'read top to bottom',
  );
}

describe('PDF pages and blocks', () => {
  test('native documentLayout: pages, typed blocks, page markers; absent unless asked and for HTML', async (t) => {
    const { site, svc } = await setup(t);
    const url = `${site.url}/report.pdf`;
    const doc = await data(svc, '/api/v1/scrape', { url, documentLayout: { pages: true, blocks: true } });
    const pages = doc.pages as { pageNumber: number; markdown: string }[];
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      [1, 2],
    );
    assert.match(pages[0]!.markdown, /^# Annual Figures\n\nThis report covers the year\./);
    assert.match(pages[0]!.markdown, /\| North \| 1,200 \| 12% \|/);
    assert.doesNotMatch(pages[0]!.markdown, /Outlook/);
    assert.match(pages[1]!.markdown, /^# Outlook/);
    const blocks = doc.blocks as PdfPageBlocks[];
    assert.deepEqual(
      blocks.map((p) => p.items.map((item) => `${item.type}/${item.label}`)),
      [
        ['heading/h1', 'paragraph/p', 'table/table'],
        ['heading/h1', 'paragraph/p', 'list/ul'],
      ],
    );
    blocks.forEach((page, i) => checkBlocks(page, pages[i]!.markdown));
    const heading = blocks[0]!.items[0]!;
    assert.equal(heading.id, 'p1-0');
    assert.equal(heading.content, '# Annual Figures');
    // 22 pt text on the baseline at y = 740 (from the bottom): about 35 to 57 pt from the top.
    assert.ok(
      Math.abs(heading.bbox![1] - 34.4) < 1 && Math.abs(heading.bbox![3] - 56.4) < 1,
      `${heading.bbox}`,
    );
    assert.equal(heading.bbox![0], 72);

    const plain = await data(svc, '/api/v1/scrape', { url });
    assert.equal(plain.pages, undefined);
    assert.equal(plain.blocks, undefined);
    const marked = await data(svc, '/api/v1/scrape', { url, documentLayout: { pageMarkers: true } });
    assert.equal(marked.markdown, `${pages[0]!.markdown}\n\n---\n\n<!-- page 2 -->\n\n${pages[1]!.markdown}`);
    assert.equal(marked.pages, undefined, 'markers alone add no field');
    const html = await data(svc, '/api/v1/scrape', {
      url: `${site.url}/`,
      engine: 'http',
      documentLayout: { pages: true, blocks: true },
    });
    assert.equal(html.pages, undefined);
    assert.equal(html.blocks, undefined);
    const limited = await data(svc, '/api/v1/scrape', {
      url,
      maxDocumentPages: 1,
      documentLayout: { pages: true },
    });
    assert.equal((limited.pages as unknown[]).length, 1, 'the page limit holds');
  });

  test("Firecrawl's parsers: pages, blocks and pageMarkers through the SDK; pageMarkdown is pages", async (t) => {
    const { site, svc, fc } = await setup(t);
    const url = `${site.url}/report.pdf`;
    const doc = await fc.scrape(url, { parsers: [{ type: 'pdf', pages: true, blocks: true }] });
    assert.equal(doc.pages?.length, 2);
    assert.match(doc.pages![1]!.markdown, /- Open an office in the west\n- Hire ten engineers/);
    assert.equal(doc.blocks?.length, 2);
    doc.blocks!.forEach((page, i) => checkBlocks(page, doc.pages![i]!.markdown));
    const plain = await fc.scrape(url, { formats: ['markdown'] });
    assert.equal(plain.pages, undefined);
    assert.equal(plain.blocks, undefined);
    const marked = await fc.scrape(url, { parsers: [{ type: 'pdf', pageMarkers: true }] });
    assert.match(marked.markdown ?? '', /\| South \| 800 \| 8% \|\n\n---\n\n<!-- page 2 -->\n\n# Outlook/);

    const alias = await data(svc, '/v2/scrape', { url, parsers: [{ type: 'pdf', pageMarkdown: true }] });
    assert.equal((alias.pages as unknown[]).length, 2);
    assert.equal(alias.blocks, undefined);
    const bad = await svc.post('/v2/scrape', { url, parsers: [{ type: 'pdf', blocks: 'yes' }] });
    assert.equal(bad.status, 400);
    // Firecrawl's answer to a parser that matches none of its shapes; the reason is in the details.
    assert.equal(bad.json.error, 'Bad Request');
    const [detail] = bad.json.details as { path: unknown[]; message: string }[];
    assert.deepEqual(detail!.path, ['parsers', 0]);
    assert.match(detail!.message, /parsers\[0\]\.blocks: must be a boolean/);
  });

  test('an uploaded PDF takes documentLayout too', async (t) => {
    const svc = await startService(t);
    const upload = new FormData();
    upload.append('options', JSON.stringify({ documentLayout: { pages: true, blocks: true } }));
    upload.append('file', new Blob([new Uint8Array(reportPdf())]), 'report.pdf');
    const res = await fetch(`${svc.url}/api/v1/parse`, { method: 'POST', body: upload });
    assert.equal(res.status, 200);
    const doc = ((await res.json()) as { data: { pages: unknown[]; blocks: PdfPageBlocks[] } }).data;
    assert.equal(doc.pages.length, 2);
    assert.equal(doc.blocks[0]!.items[2]!.type, 'table');
  });
});
