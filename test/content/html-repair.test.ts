import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownOf } from '../helpers.js';
import { repairForParser } from '../../src/content/parse/html-repair.js';
import { parseHtml } from '../../src/content/parse/parse.js';
import { findFirst } from '../../src/content/parse/dom.js';

describe('<![CDATA[ in HTML content (WHATWG: a bogus comment up to the next ">")', () => {
  test('a stray marker hides only itself, not the rest of the page', () => {
    const html = `<body><p>First.</p><![CDATA[<div id="top"></div><main><p>The whole thread.</p></main></body>`;
    const markdown = markdownOf(html);
    assert.match(markdown, /First\./);
    assert.match(markdown, /The whole thread\./);
  });

  test('SVG and MathML keep their CDATA sections; scripts, styles and comments are left as they are', () => {
    const svg = '<svg><text><![CDATA[a < b]]></text></svg>';
    assert.equal(repairForParser(svg), svg);
    const text = findFirst(parseHtml(`<body>${svg}</body>`), 'text')!;
    assert.deepEqual(
      text.children.map((c) => ('data' in c ? c.data : '')),
      ['a < b'],
    );
    const script = '<script>//<![CDATA[\nvar a = 1;\n//]]></script><style>/*<![CDATA[*/p{}</style>';
    assert.equal(repairForParser(script), script);
    const comment = '<!-- <![CDATA[ --><p>x</p>';
    assert.equal(repairForParser(comment), comment);
    // The same length: the rewrite is `<!` to `<?`, both a bogus comment in HTML.
    const stray = '<p>a</p><![CDATA[ b ]]><p>c</p>';
    assert.equal(repairForParser(stray), '<p>a</p><?[CDATA[ b ]]><p>c</p>');
    assert.equal(repairForParser('<svg/><![CDATA[x]]>').length, '<svg/><![CDATA[x]]>'.length);
  });
});

describe('<noscript><iframe … /></noscript> (a browser, scripting on, reads <noscript> as raw text)', () => {
  test('an iframe left open in a <noscript> is closed there, not at the end of the page', () => {
    const page = `<html><body><noscript><iframe src="https://tags.example/ns.html" height="0" width="0" style="display:none" /></noscript>
      <main><h1>Deploy</h1><p>Your fastest path to production.</p></main></body></html>`;
    assert.match(markdownOf(page), /Your fastest path to production/);
    const closed = '<noscript><iframe src="x"></iframe></noscript><p>a</p>';
    assert.equal(repairForParser(closed), closed);
    // Thousands of <noscript> with no end tag are scanned once, not once each.
    const hostile = '<noscript>'.repeat(50_000) + '<p>end</p>';
    assert.equal(repairForParser(hostile), hostile);
  });
});

describe('content a browser puts in <body> though the tags put it elsewhere (WHATWG "after body")', () => {
  test('after an early </body></html>, and between </head> and <body>, content joins the body in order', () => {
    const page = `<!doctype html><html><head><title>T</title></head><div>Opening line.</div>
      <body><p>First part.</p></body></html>
      <div><p>Second part, after a stray end of the page.</p></div><!-- cached --></html>`;
    const markdown = markdownOf(page);
    const at = (text: string): number => markdown.indexOf(text);
    assert.ok(at('Opening line') >= 0 && at('Opening line') < at('First part'), markdown);
    assert.ok(at('First part') < at('Second part, after a stray end'), markdown);
    // Without an <html> tag, the same.
    assert.match(markdownOf('<head></head><body><p>One.</p></body><p>Two.</p>'), /One\.\s+Two\./);
  });
});
