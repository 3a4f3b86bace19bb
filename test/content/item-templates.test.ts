import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fillTemplates, itemTemplates } from '../../src/content/main-content/item-templates.js';
import { analysePage } from '../../src/content/main-content/main-content.js';
import { parseHtml } from '../../src/content/parse/parse.js';

/** A grid of `n` product cards (a linked title, a price, a feature line), a menu and a footer around it. */
const grid = (n: number): string => `<html><body>
  <nav><ul><li><a href="/a">Shop</a></li><li><a href="/b">Help</a></li></ul></nav>
  <div class="grid">${Array.from(
    { length: n },
    (_, i) => `<div class="cell"><div class="info"><a class="title" href="/p/${i}">Trail shoe model ${i}</a>
      <p class="price">$${100 + i}.00 with free shipping</p><ul><li>Model #: TS-${i}</li></ul></div></div>`,
  ).join('')}</div>
  <footer><p>Copyright Example Outfitters, all rights reserved.</p></footer></body></html>`;

/** The blocks of a page with their template groups on a kind of page that fills them. */
function blocksOf(html: string): { texts: string[]; groups: Int32Array } {
  const page = analysePage(parseHtml(html), 'listing', { texts: true })!;
  const groups = itemTemplates('listing', page.blocks!.elements)!;
  return { texts: page.blocks!.texts!, groups };
}

describe('item templates', () => {
  test('blocks at the same place in alike cards share a group; menu and footer are in none', () => {
    const { texts, groups } = blocksOf(grid(6));
    const groupOf = (text: string): number => groups[texts.findIndex((t) => t.includes(text))]!;
    const titles = new Set([0, 1, 2, 3, 4, 5].map((i) => groupOf(`Trail shoe model ${i}`)));
    const prices = new Set([0, 1, 2, 3, 4, 5].map((i) => groupOf(`$${100 + i}.00`)));
    assert.equal(titles.size, 1);
    assert.equal(prices.size, 1);
    assert.notDeepEqual([...titles], [...prices]);
    assert.ok([...titles][0]! >= 0);
    assert.equal(groupOf('Copyright'), -1);
  });

  test('too few alike items, or a kind of page without templates, give no groups', () => {
    assert.ok(blocksOf(grid(3)).groups.every((g) => g === -1));
    const page = analysePage(parseHtml(grid(6)), 'article', { texts: true })!;
    assert.equal(itemTemplates('article', page.blocks!.elements), undefined);
    assert.equal(itemTemplates('forum', page.blocks!.elements), undefined);
    assert.equal(itemTemplates('product', page.blocks!.elements), undefined);
  });

  test('a group kept in part is kept whole; one kept too thinly is left as it is', () => {
    const { texts, groups } = blocksOf(grid(6));
    const lengths = texts.map((t) => t.length);
    const titleRows = texts.flatMap((t, i) => (t.startsWith('Trail shoe') ? [i] : []));
    const priceRows = texts.flatMap((t, i) => (t.startsWith('$') ? [i] : []));
    const kept = new Uint8Array(texts.length);
    for (const r of titleRows.slice(0, 5)) kept[r] = 1; // the model kept five titles of six
    for (const r of priceRows.slice(0, 3)) kept[r] = 1; // and three prices of six: under the share that fills
    fillTemplates(kept, groups, lengths);
    assert.deepEqual(
      titleRows.map((r) => kept[r]),
      [1, 1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      priceRows.map((r) => kept[r]),
      [1, 1, 1, 0, 0, 0],
    );
    assert.equal(kept[texts.findIndex((t) => t.includes('Copyright'))], 0);
  });
});
