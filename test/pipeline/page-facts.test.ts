import assert from 'node:assert/strict';
import { test } from 'node:test';
import { articlePage } from '../../bench/article-site.js';
import { STATIC_PAGE_WORDS } from '../../src/content/client-rendered.js';
import { renderPage } from '../../src/pipeline/page-document.js';
import type { DocumentOptions } from '../../src/pipeline/page-document.js';

const render = (html: string, options: Partial<DocumentOptions>) =>
  renderPage(
    {
      url: 'https://example.com/a/1',
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: Buffer.from(html),
      redirects: [],
    },
    {
      sourceUrl: 'https://example.com/a/1',
      formats: ['markdown'],
      onlyMainContent: true,
      removeBase64Images: true,
      detectionReason: null,
      discover: true,
      ...options,
    },
  );

/** The metadata without the facts that only a native document shows. */
const withoutFacts = (metadata: object) => {
  const { excerpt, detectedFrameworks, contentScriptRatio, pageType, wordCount, readingTime, ...rest } =
    metadata as Record<string, unknown>;
  return rest;
};

test('without facts a page renders the same document, links and verdict, with the facts left empty', () => {
  for (let n = 0; n < 12; n++) {
    for (const onlyMainContent of [true, false]) {
      const html = articlePage(n * 41, 10_000);
      const full = render(html, { onlyMainContent });
      const lean = render(html, { onlyMainContent, facts: false });
      assert.equal(lean.document.markdown, full.document.markdown);
      assert.deepEqual(withoutFacts(lean.document.metadata), withoutFacts(full.document.metadata));
      assert.deepEqual(lean.links, full.links);
      assert.equal(lean.clientRendered, full.clientRendered);
      assert.ok(full.document.metadata.excerpt && full.document.metadata.pageType);
      const { excerpt, detectedFrameworks, contentScriptRatio, pageType, wordCount } = lean.document.metadata;
      assert.deepEqual([excerpt, detectedFrameworks, contentScriptRatio], [null, null, null]);
      // Words are counted as far as the engine choice reads them.
      assert.equal(wordCount, Math.min(full.document.metadata.wordCount, STATIC_PAGE_WORDS));
      // Main content needs the page's kind, so it is told then.
      assert.equal(pageType, onlyMainContent ? full.document.metadata.pageType : undefined);
    }
  }
});

test('without facts a page of few words still gets its script signals: the engine choice reads them', () => {
  const html =
    '<html><body><div id="root"></div><p>Loading</p>' +
    `<script>window.__NEXT_DATA__ = {"props": {}}; ${'render();'.repeat(300)}</script></body></html>`;
  const full = render(html, {});
  const lean = render(html, { facts: false });
  assert.match(String(full.clientRendered), /empty app root #root .*next\.js/);
  assert.equal(lean.clientRendered, full.clientRendered);
  assert.equal(lean.document.metadata.wordCount, full.document.metadata.wordCount);
  assert.deepEqual(lean.document.metadata.detectedFrameworks, full.document.metadata.detectedFrameworks);
});

test('pagination links are found only for a crawl that follows them', () => {
  const html =
    '<html><body><main><h1>Posts</h1>' +
    Array.from({ length: 12 }, (_, i) => `<article><h2><a href="/p/${i}">Post ${i}</a></h2></article>`).join(
      '',
    ) +
    '</main><nav class="pagination"><a href="/a?page=2" rel="next">Next</a></nav></body></html>';
  assert.deepEqual(render(html, { discover: true }).pagination, []);
  assert.deepEqual(render(html, { discover: true, pagination: true }).pagination, [
    'https://example.com/a?page=2',
  ]);
});
