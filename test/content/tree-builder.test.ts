import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Parser } from 'htmlparser2';
import { DomHandler } from 'domhandler';
import type { AnyNode } from 'domhandler';
import { articlePage } from '../../bench/article-site.js';
import { buildTree } from '../../src/content/parse/tree-builder.js';

/** A tree as nested arrays: kind, name, attributes in their order, data, children. */
function shape(node: AnyNode): unknown {
  if ('children' in node) {
    const named = node as { name?: string; attribs?: Record<string, string> };
    return [
      node.type,
      named.name ?? null,
      named.attribs ? Object.entries(named.attribs) : null,
      node.children.map(shape),
    ];
  }
  return [node.type, 'data' in node ? node.data : null, 'name' in node ? node.name : null];
}

const handler = (): DomHandler =>
  new DomHandler(undefined, { withStartIndices: false, withEndIndices: false });

function byHtmlparser2(html: string): string {
  const dom = handler();
  new Parser(dom, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true }).end(html);
  return JSON.stringify(dom.root.children.map(shape));
}

/** The tree builder's tree, or null when it leaves the markup to htmlparser2. */
function built(html: string): string | null {
  const dom = handler();
  if (!buildTree(html, dom)) return null;
  return JSON.stringify(dom.root.children.map(shape));
}

/** Whether the builder read `html`; when it did, its tree must be htmlparser2's. */
function sameTree(html: string): boolean {
  const tree = built(html);
  if (tree !== null) assert.equal(tree, byHtmlparser2(html), JSON.stringify(html.slice(0, 300)));
  return tree !== null;
}

const PIECES = [
  'text ',
  ' ',
  '\n',
  '\u00e9\u2019',
  '<p>',
  '</p>',
  '</P >',
  '<br/>',
  '</br>',
  '<br>',
  '<div>',
  '</div>',
  '<Div CLASS=Q>',
  '<a href="x&amp;y">',
  '</a>',
  '<a b=c d e="f" b=g>',
  '<a/b>',
  '<a =b>',
  '<a "q">',
  '<a __proto__=x>',
  '<a t="&ampx">',
  '<a t="&amp=">',
  '<a t=&lt>',
  "<a t='&#99999999;'>",
  "<x y='&lt;z'>",
  '<input value=&amp;x>',
  '<img src=x/>',
  '<image src=a>',
  '<p/>',
  '<li>',
  '<ul>',
  '</ul>',
  '<table>',
  '<tbody>',
  '<tr>',
  '<td>',
  '</td>',
  '<select>',
  '<option>',
  '<form>',
  '</form>',
  '<h1>',
  '</h1>',
  '<h2>',
  '<dd>',
  '<dt>',
  '<rt>',
  '<rp>',
  '<head>',
  '<body>',
  '<link>',
  '<noscript>',
  '</noscript>',
  '<svg>',
  '</svg>',
  '<svg/>',
  '<path d="M0"/>',
  '<clippath>',
  '</clipPath>',
  '<foreignObject>',
  '</foreignobject>',
  '<desc>',
  '</desc>',
  '<math>',
  '<mi>',
  '</mi>',
  '</math>',
  '<title>',
  '</title>',
  '<TITLE>',
  '<title>a &amp; b</title>',
  '<script>',
  '</script>',
  '</SCRIPT >',
  '</scriptx>',
  '<script>if (a<b) x="</div>"</script>',
  '<style>a>b{}</STYLE>',
  '<style>',
  '</style>',
  '<textarea>',
  '</textarea>',
  '<textarea>&lt;x&gt</textarea>',
  '<xmp>',
  '</xmp>',
  '<iframe>',
  '</iframe>',
  '<!-- c -->',
  '<!-->',
  '<!--->',
  '<!---->',
  '-->',
  '--!>',
  '<!DOCTYPE html>',
  '<!doctype>',
  '<!doc>',
  '<!x>',
  '<!>',
  '<?x?>',
  '</ p>',
  '</3>',
  '</>',
  '&amp;',
  '&amp',
  '&amp;x',
  '&ampx',
  '&lt;',
  '&lt',
  '&gt=',
  '&notit;',
  '&notin;',
  '&not',
  '&noti',
  '&AMP;',
  '&#39;',
  '&#x27',
  '&#X41;',
  '&#65',
  '&#128;',
  '&#0;',
  '&#xD800;',
  '&#',
  '&',
  '&&',
  '&;',
  '&nbsp',
  '&copy=',
  '&NotNestedLessLess;',
  'a&b',
  '=',
];
/** Pieces after which htmlparser2 alone reads the rest: cut-off markup, CDATA, and the controls it folds. */
const STOPPERS = ['<', '</', '"', "'", '<!--', '<![CDATA[x]]>', '<plaintext>', '\x0f', '\x1c', '<a href="x'];

function randomMarkup(seed: number, pieces: readonly string[]): string {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  let html = '';
  for (let i = 1 + next(30); i > 0; i--) html += pieces[next(pieces.length)];
  return html;
}

describe('the tree builder builds the tree htmlparser2 builds', () => {
  test('on the fixture pages and bench articles', () => {
    const dir = join(import.meta.dirname, '../fixtures');
    const pages = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
    assert.ok(pages.length > 5);
    for (const file of pages) assert.ok(sameTree(readFileSync(join(dir, file), 'utf8')), file);
    for (let n = 0; n < 20; n++) assert.ok(sameTree(articlePage(n, 5000)));
  });

  test('on generated markup made of the constructs that shape a tree', () => {
    let read = 0;
    for (let seed = 1; seed <= 6000; seed++) if (sameTree(randomMarkup(seed, PIECES))) read++;
    for (let seed = 1; seed <= 2000; seed++) sameTree(randomMarkup(seed, [...PIECES, ...STOPPERS]));
    // Most of it is read by the builder, not left to htmlparser2 (unclosed raw text is).
    assert.ok(read > 3000, `${read} of 6000 read`);
  });

  test('leaves CDATA, plaintext, cut-off markup and folded controls to htmlparser2', () => {
    for (const html of [
      '<p><![CDATA[x]]></p>',
      '<plaintext><p>',
      '<div class="x',
      '<div',
      '<!-- open',
      '<script>never closed',
      '<script>\x1c/script></script>',
      '<title>a<&amp;</title>',
    ])
      assert.equal(built(html), null, html);
  });
});
