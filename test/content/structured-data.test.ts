import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readPageData } from '../../src/pipeline/page-data.js';

const page = (name: string): string =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'formats', name), 'utf8');
const URL_ = 'https://shop.test/p/1';

describe('structured data: product and menu from schema.org', () => {
  test('microdata: nested items (brand, offer) and values from content, href and text', () => {
    const { product } = readPageData({ html: page('product-microdata.html'), url: URL_, product: true });
    assert.deepEqual(product, {
      title: 'Field Kettle 1.2 L',
      brand: 'Emberline',
      url: URL_,
      description: 'A titanium kettle that boils a litre in four minutes.',
      variants: [
        {
          sku: 'EMB-K12',
          title: 'Field Kettle 1.2 L',
          price: { amount: 49.95, currency: 'EUR', formatted: '€49.95' },
          availability: { inStock: true, text: 'InStock' },
          images: [{ url: 'https://shop.test/img/kettle.jpg' }],
        },
      ],
    });
  });

  test('JSON-LD: markup in a text value is dropped; a value of unclosed marks is kept as text, cut', () => {
    const name = (value: string) =>
      readPageData({
        html: `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: value })}</script>`,
        url: URL_,
        product: true,
      }).product?.title;
    assert.equal(name('<b>Desk</b> lamp'), 'Desk lamp');
    assert.equal(name('<'.repeat(200_000)), '<'.repeat(5000));
  });

  test('JSON-LD: broken blocks are skipped; an AggregateOffer gives its low price; offers become variants', () => {
    const html = `<html><head>
      <script type="application/ld+json">{ not json</script>
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Desk","sku":"D-1",
        "offers":{"@type":"AggregateOffer","lowPrice":"1,299.50","highPrice":"1,499.00","priceCurrency":"usd","availability":"http://schema.org/PreOrder"}}</script>
      </head><body></body></html>`;
    const { product, menu } = readPageData({ html, url: URL_, product: true, menu: true });
    assert.deepEqual(product?.variants, [
      {
        sku: 'D-1',
        title: 'Desk',
        price: { amount: 1299.5, currency: 'USD', formatted: '$1,299.50' },
        availability: { inStock: false, text: 'PreOrder' },
      },
    ]);
    assert.equal(menu, null);
  });

  test('a page that declares nothing has neither; attributes run on the same parse', () => {
    const data = readPageData({
      html: page('article.html'),
      url: URL_,
      product: true,
      menu: true,
      attributes: [{ selector: 'h1, h2', attribute: 'id' }],
      textChars: 100_000,
    });
    assert.equal(data.product, null);
    assert.equal(data.menu, null);
    assert.deepEqual(data.attributes, [{ selector: 'h1, h2', attribute: 'id', values: [] }]);
    assert.match(data.text ?? '', /Honey bees hold the brood nest/);
    const clipped = readPageData({ html: page('article.html'), url: URL_, textChars: 40 });
    assert.equal(clipped.text?.length, 40, 'the text is clipped in the worker');
  });

  test('menu sections without a Menu: the outermost sections, add-on sections left inside their item', () => {
    const html = `<script type="application/ld+json">[
      {"@type":"MenuSection","name":"Pizzas","hasMenuItem":[{"@type":"MenuItem","name":"Margherita",
        "menuAddOn":{"@type":"MenuSection","name":"Extras","hasMenuItem":{"@type":"MenuItem","name":"Basil"}},
        "offers":{"@type":"Offer","price":9,"priceCurrency":"EUR"}}]}]</script>`;
    const { menu } = readPageData({ html, url: URL_, menu: true });
    assert.deepEqual(
      menu?.sections.map((s) => s.name),
      ['Pizzas'],
    );
    assert.equal(menu?.merchant.name, '');
    assert.equal(menu?.currency, 'EUR');
    assert.deepEqual(menu?.sections[0]?.items[0]?.optionGroups, [
      { name: 'Extras', options: [{ name: 'Basil' }] },
    ]);
  });
});
