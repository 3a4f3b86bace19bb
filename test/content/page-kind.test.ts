import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseHtml } from '../../src/content/parse/parse.js';
import { detectPageKind } from '../../src/content/main-content/page-kind.js';

const kindOf = (html: string, path = '/'): { kind: string; signal: string } =>
  detectPageKind(parseHtml(html), new URL(`https://example.test${path}`));

const posts = Array.from(
  { length: 5 },
  (_, i) =>
    `<div class="post"><span class="author">user${i}</span><p>${'A reply with a message worth reading. '.repeat(4)}</p></div>`,
).join('');

describe('page kind: a signal, never a site rule', () => {
  test('schema.org types in JSON-LD (nested and @graph) and microdata decide first', () => {
    const ld = (value: unknown): string =>
      `<script type="application/ld+json">${JSON.stringify(value)}</script><p>x</p>`;
    assert.deepEqual(kindOf(ld({ '@type': 'Product', name: 'Boot' })), {
      kind: 'product',
      signal: 'schema.org product',
    });
    assert.equal(
      kindOf(ld({ '@graph': [{ '@type': 'WebPage' }, { '@type': 'NewsArticle' }] })).kind,
      'article',
    );
    assert.equal(kindOf(ld({ '@type': 'QAPage', mainEntity: { '@type': 'Question' } })).kind, 'forum');
    // An FAQ section's questions are not a thread.
    const faq = {
      '@type': 'FAQPage',
      mainEntity: [{ '@type': 'Question', acceptedAnswer: { '@type': 'Answer' } }],
    };
    assert.notEqual(kindOf(ld(faq)).kind, 'forum');
    assert.equal(kindOf(ld({ '@type': ['ItemList'] })).kind, 'listing');
    assert.equal(
      kindOf('<div itemscope itemtype="https://schema.org/TechArticle"></div>').kind,
      'documentation',
    );
    assert.equal(kindOf('<script type="application/ld+json">{broken</script>').kind, 'other');
  });

  test('then Open Graph, then structure: price and cart, a thread of posts, code', () => {
    assert.equal(kindOf('<meta property="og:type" content="article">').kind, 'article');
    assert.equal(
      kindOf('<span itemprop="price">49</span><button class="add-to-cart">Buy</button>').kind,
      'product',
    );
    assert.equal(kindOf(posts).kind, 'forum');
    assert.equal(kindOf('<pre>npm install</pre>', '/docs/install').kind, 'documentation');
    assert.equal(kindOf('<p>Just text.</p>').kind, 'other');
    // Post titles and metadata are not posts.
    assert.equal(kindOf('<h2 class="post-title">A</h2>'.repeat(8)).kind, 'other');
  });

  test('a list of products is a listing: many declared, a product group, a grid of priced items', () => {
    const ld = (value: unknown): string =>
      `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
    const products = (n: number): unknown[] =>
      Array.from({ length: n }, (_, i) => ({ '@type': 'Product', name: `Boot ${i}` }));
    assert.deepEqual(kindOf(ld({ '@graph': products(8) })), {
      kind: 'listing',
      signal: 'schema.org product, 8 of them',
    });
    // A product page declaring its variants or a related product or two is still a product.
    assert.equal(kindOf(ld({ '@graph': products(2) })).kind, 'product');
    // A roundup article declaring the products it reviews is an article.
    assert.equal(kindOf(ld({ '@graph': [{ '@type': 'NewsArticle' }, ...products(7)] })).kind, 'article');
    // So is an article declaring an ItemList (its picks, its table of contents).
    assert.equal(kindOf(ld({ '@graph': [{ '@type': 'ItemList' }, { '@type': 'Article' }] })).kind, 'article');
    assert.equal(kindOf('<meta property="og:type" content="product.group">').kind, 'listing');

    const card = (i: number, price: string): string =>
      `<li class="card tile"><a href="/p/${i}">Boot ${i}</a><span class="price">${price}</span></li>`;
    const grid = (prices: string[]): string => `<ul>${prices.map((p, i) => card(i, p)).join('')}</ul>`;
    assert.deepEqual(kindOf(grid(Array(6).fill('$49.00'))), { kind: 'listing', signal: '6 priced items' });
    // A price split across spans is still a price; so is one written with its currency after it.
    const split = '<span>$</span><span>49</span><span>.99</span>';
    assert.equal(kindOf(grid([...Array(3).fill(split), ...Array(3).fill('49,90 €')])).kind, 'listing');
    // Five related products under a product are not a grid of the page, nor are links without prices.
    assert.notEqual(kindOf(grid(Array(5).fill('$49.00'))).kind, 'listing');
    assert.notEqual(kindOf(grid(Array(12).fill('In stock'))).kind, 'listing');
  });
});
