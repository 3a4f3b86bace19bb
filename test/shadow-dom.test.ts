import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderPage } from '../src/services/page-document.js';

/** Declarative shadow roots are page content in the http engine too (issue 19's first part). */
test('a declarative shadow root is converted in place; an inert template is not', () => {
  const html =
    '<html><head><title>Cards</title></head><body><main><h1>Cards</h1><my-card><template shadowrootmode="open">' +
    '<h2>Shadow title</h2><p>Text only in the shadow root.</p><slot></slot></template><p>Light child.</p></my-card>' +
    '<template><p>Inert template</p></template></main></body></html>';
  const { document } = renderPage(
    {
      url: 'http://x.test/',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: Buffer.from(html),
      redirects: [],
    },
    {
      sourceUrl: 'http://x.test/',
      formats: ['markdown'],
      onlyMainContent: false,
      removeBase64Images: true,
      detectionReason: null,
    },
  );
  assert.equal(
    document.markdown,
    '# Cards\n\n## Shadow title\n\nText only in the shadow root.\n\nLight child.',
  );
});
