import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildContent } from '../src/content/build.js';
import { bogusCdataAsComments } from '../src/content/html-cdata.js';
import { findFirst, parseHtml } from '../src/content/parse.js';

const markdownOf = (html: string): string =>
  buildContent(html, new URL('https://example.test/'), {
    onlyMainContent: false,
    removeBase64Images: true,
    html: false,
    links: false,
    images: false,
  }).markdown;

describe('<![CDATA[ in HTML content (WHATWG: a bogus comment up to the next ">")', () => {
  test('a stray marker hides only itself, not the rest of the page', () => {
    const html = `<body><p>First.</p><![CDATA[<div id="top"></div><main><p>The whole thread.</p></main></body>`;
    const markdown = markdownOf(html);
    assert.match(markdown, /First\./);
    assert.match(markdown, /The whole thread\./);
  });

  test('SVG and MathML keep their CDATA sections; scripts, styles and comments are left as they are', () => {
    const svg = '<svg><text><![CDATA[a < b]]></text></svg>';
    assert.equal(bogusCdataAsComments(svg), svg);
    const text = findFirst(parseHtml(`<body>${svg}</body>`), 'text')!;
    assert.deepEqual(
      text.children.map((c) => ('data' in c ? c.data : '')),
      ['a < b'],
    );
    const script = '<script>//<![CDATA[\nvar a = 1;\n//]]></script><style>/*<![CDATA[*/p{}</style>';
    assert.equal(bogusCdataAsComments(script), script);
    const comment = '<!-- <![CDATA[ --><p>x</p>';
    assert.equal(bogusCdataAsComments(comment), comment);
    // The same length: the rewrite is `<!` to `<?`, both a bogus comment in HTML.
    const stray = '<p>a</p><![CDATA[ b ]]><p>c</p>';
    assert.equal(bogusCdataAsComments(stray), '<p>a</p><?[CDATA[ b ]]><p>c</p>');
    assert.equal(bogusCdataAsComments('<svg/><![CDATA[x]]>').length, '<svg/><![CDATA[x]]>'.length);
  });
});
