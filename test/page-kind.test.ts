import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseHtml } from '../src/content/parse.js';
import { detectPageKind } from '../src/content/page-kind.js';

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
});
