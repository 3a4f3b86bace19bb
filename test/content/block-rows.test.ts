import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StatsTable, measure } from '../../src/content/main-content/block-stats.js';
import { analysePage } from '../../src/content/main-content/main-content.js';
import { runsOfAlike } from '../../src/content/main-content/sibling-runs.js';
import { bodyOf, isTag } from '../../src/content/parse/dom.js';
import type { Element } from '../../src/content/parse/dom.js';
import { parseHtml } from '../../src/content/parse/parse.js';

/** `count` children of each of `kinds` kinds (tag and class), interleaved, each with some text. */
function parentOf(kinds: string[], count: number): { parent: Element; stats: StatsTable } {
  const children: string[] = [];
  for (let i = 0; i < count; i++)
    kinds.forEach((kind, k) => {
      const [tag, cls] = kind.split('.');
      children.push(`<${tag}${cls === undefined ? '' : ` class="${cls}"`}>item ${k} ${i}</${tag}>`);
    });
  const doc = parseHtml(`<html><body><div id="parent">${children.join('')}</div></body></html>`);
  const stats = new StatsTable();
  measure(bodyOf(doc), stats);
  const parent = (bodyOf(doc) as Element).children.find(isTag)!;
  return { parent, stats };
}

/** Per child: how many siblings share its run (by tag and class). */
const runSizes = (parent: Element, stats: StatsTable): number[] =>
  runsOfAlike(parent, stats).map((run) => run?.all ?? 0);

describe('runs of alike siblings', () => {
  test('children are grouped by tag and class, whether a parent has a few kinds or many', () => {
    for (const kinds of [
      ['p', 'div.card', 'div'],
      // A parent of many kinds of children (cards, list items, menus side by side).
      ['p', 'div.a', 'div.b', 'div', 'span', 'span.a', 'li', 'li.x y', 'section', 'a', 'b.a', 'i'],
    ]) {
      const { parent, stats } = parentOf(kinds, 3);
      const runs = runsOfAlike(parent, stats);
      assert.ok(runSizes(parent, stats).every((n) => n === 3));
      // Children of one kind share one run; children of another kind do not.
      const tagged = parent.children.filter(isTag);
      assert.equal(new Set(runs).size, kinds.length);
      tagged.forEach((child, i) => assert.equal(runs[i], runs[i % kinds.length]));
      assert.ok(runs.every((run) => run!.count === 3 && run!.text > 0));
    }
  });

  test('an empty class is no class, and a class differing only after a space is another kind', () => {
    const doc = parseHtml('<div><p class="">a</p><p>b</p><p class="x y">c</p><p class="x">d</p></div>');
    const stats = new StatsTable();
    measure(bodyOf(doc), stats);
    const parent = (bodyOf(doc) as Element).children.find(isTag)!;
    assert.deepEqual(runSizes(parent, stats), [2, 2, 1, 1]);
  });
});

describe('blocks below an element', () => {
  test('counts the blocks with text of their own in a subtree, concealed ones measured apart included', () => {
    const doc = parseHtml(
      '<div id="d"><p>one <a href="/x">link <em>em</em></a></p><span>inline <b>bold</b></span>' +
        '<section hidden><p>folded</p></section><div><p></p></div></div>',
    );
    const body = bodyOf(doc) as Element;
    const byId = (id: string): Element =>
      body.children.find((el): el is Element => isTag(el) && el.attribs.id === id)!;
    for (const [mode, folded] of [
      ['skip', 0],
      ['apart', 1],
    ] as const) {
      const stats = new StatsTable();
      measure(body, stats, mode);
      const d = byId('d');
      const [p, span, section, empty] = d.children.filter(isTag);
      // The paragraph, the folded paragraph when concealed blocks are measured apart, and d itself (its span).
      assert.equal(stats.get(d)!.blocks, 2 + folded);
      assert.equal(stats.get(p!)!.blocks, 1);
      // Inline elements (a link, emphasis, a span of text) hold no block: block features do not walk them.
      assert.equal(stats.get(p!.children.filter(isTag)[0]!)!.blocks, 0);
      assert.equal(stats.get(span!)!.blocks, 0);
      assert.equal(stats.get(section!)?.blocks, mode === 'apart' ? 1 : undefined);
      assert.equal(stats.get(empty!)!.blocks, 0);
    }
  });
});

describe('block feature rows', () => {
  const page = (paragraphs: number): string =>
    `<html><body><nav><a href="/a">Home</a> <a href="/b">About</a></nav><main><h1>Title</h1>${Array.from(
      { length: paragraphs },
      (_, i) => `<p>Paragraph ${i} of the article, with a sentence or two of text, 12 digits ${i * 7}.</p>`,
    ).join('')}</main><footer><p>Footer line, all rights reserved.</p></footer></body></html>`;
  const features = (html: string): Float32Array => analysePage(parseHtml(html), 'article')!.blocks!.features;

  test("a page's rows are the same whatever page was analysed before it, and stay its own", () => {
    const small = features(page(5));
    const copy = Float32Array.from(small);
    // Analyses of other pages, larger and smaller, in between.
    features(page(400));
    assert.deepEqual(small, copy);
    assert.deepEqual(features(page(5)), copy);
    features(page(80));
    assert.deepEqual(features(page(5)), copy);
  });
});
