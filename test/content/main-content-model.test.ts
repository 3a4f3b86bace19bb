import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CONTEXT_FEATURES,
  containersOf,
  contextFeatures,
} from '../../src/content/main-content/block-context.js';
import {
  FEATURE_COUNT,
  FEATURE_NAMES,
  codeAfterProse,
  ruleKept,
} from '../../src/content/main-content/block-features.js';
import { checkModel, predict } from '../../src/content/main-content/block-model.js';
import type { KeepRule, MainContentModel, TreeModel } from '../../src/content/main-content/block-model.js';
import { MAIN_CONTENT_MODEL } from '../../src/content/main-content/block-model-weights.js';
import {
  MAX_MODEL_BLOCKS,
  analysePage,
  enoughKept,
  keepBlocks,
  pickMainContent,
} from '../../src/content/main-content/main-content.js';
import { toMarkdown } from '../../src/content/markdown/markdown.js';
import { parseHtml } from '../../src/content/parse/parse.js';
import type { Element } from '../../src/content/parse/dom.js';
import type { PageKind } from '../../src/content/main-content/page-kind.js';

const ARTICLE = `<html><head><title>Rivers</title></head><body>
  <nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a></nav>
  <article><h1>Rivers</h1>
    <p>Rivers carry water, sediment and nutrients from the land to the sea, shaping valleys as they go.</p>
    <p>Their flow rises with rain and snowmelt, and falls in dry seasons, which sets the life along them.</p>
  </article>
  <footer><p>Copyright, all rights reserved.</p></footer></body></html>`;

/** One tree of depth 1 on feature `f`: rows above `at` get `right`, the others `left`. */
const stump = (
  features: readonly string[],
  f: number,
  at: number,
  left: number,
  right: number,
): TreeModel => ({
  features,
  depth: 1,
  base: 0,
  trees: [{ split: [f], at: [at], leaf: [left, right] }],
});

/** Row `r`'s probability under `model`, its trees read one level at a time (what the compiled code must give). */
function byLevels(model: TreeModel, rows: Float32Array, r: number): number {
  const inner = (1 << model.depth) - 1;
  const width = model.features.length;
  let sum = model.base;
  for (const tree of model.trees) {
    let node = 0;
    while (node < inner) node = 2 * node + (rows[r * width + tree.split[node]!]! > tree.at[node]! ? 2 : 1);
    sum += tree.leaf[node - inner]!;
  }
  return Math.fround(1 / (1 + Math.exp(-sum)));
}

/** A page's main content as Markdown, as the service renders it (skipped and revealed elements included). */
function renderMain(html: string, kind: PageKind, model: MainContentModel | null): string {
  const main = pickMainContent(parseHtml(html), kind, model)!;
  return toMarkdown(main.roots, {
    base: new URL('https://example.test/'),
    removeBase64Images: true,
    skip: main.skip,
    reveal: main.reveal,
  });
}

describe('main-content model', () => {
  test('trees send a row right when its feature is above the split; an unsplit node sends all left', () => {
    const model = stump(['a', 'b'], 1, 0.5, -2, 2);
    const p = predict(model, Float32Array.from([9, 0.5, 0, 0.6]));
    assert.ok(Math.abs(p[0]! - 1 / (1 + Math.exp(2))) < 1e-6, 'equal to the split goes left');
    assert.ok(Math.abs(p[1]! - 1 / (1 + Math.exp(-2))) < 1e-6);
    const unsplit = { ...model, trees: [{ split: [0], at: [1e30], leaf: [1, 5] }] };
    assert.ok(Math.abs(predict(unsplit, Float32Array.from([1e20, 0]))[0]! - 1 / (1 + Math.exp(-1))) < 1e-6);
  });

  test('every depth scores as its trees say: 0 (a leaf each), 2, and the shipped 4; a split past the row is refused', () => {
    const leafOnly: TreeModel = {
      features: ['a'],
      depth: 0,
      base: 0.5,
      trees: [{ split: [], at: [], leaf: [1] }],
    };
    assert.ok(Math.abs(predict(leafOnly, Float32Array.from([3]))[0]! - 1 / (1 + Math.exp(-1.5))) < 1e-6);
    // A depth-2 tree: a > 1 goes right, then b > 1 (left subtree) or a > 5 (right subtree).
    const two: TreeModel = {
      features: ['a', 'b'],
      depth: 2,
      base: 0,
      trees: [{ split: [0, 1, 0], at: [1, 1, 5], leaf: [-3, -1, 1, 3] }],
    };
    const p2 = predict(two, Float32Array.from([0, 0, 0, 2, 2, 0, 9, 0]));
    assert.deepEqual(
      Array.from(p2, (q) => Math.round(-Math.log(1 / q - 1))),
      [-3, -1, 1, 3],
    );
    // Depth 4 (unrolled, some trees to a function) against the same trees read one level at a time.
    const trees = Array.from({ length: 40 }, (_, t) => ({
      split: Array.from({ length: 15 }, (_, i) => (t + i) % 3),
      at: Array.from({ length: 15 }, (_, i) => ((t * 7 + i * 5) % 11) / 10),
      leaf: Array.from({ length: 16 }, (_, i) => (i - 8) / (t + 2)),
    }));
    const four: TreeModel = { features: ['a', 'b', 'c'], depth: 4, base: 0.25, trees };
    const rows = Float32Array.from({ length: 60 }, (_, i) => ((i * 37) % 13) / 12);
    assert.deepEqual(
      Array.from(predict(four, rows)),
      Array.from({ length: 20 }, (_, r) => byLevels(four, rows, r)),
    );
    // With `only`, the rows it marks score the same and the others read 0.
    const only = Uint8Array.from({ length: 20 }, (_, r) => +(r % 3 === 1));
    assert.deepEqual(
      Array.from(predict(four, rows, only)),
      Array.from({ length: 20 }, (_, r) => (only[r] ? byLevels(four, rows, r) : 0)),
    );
    assert.throws(() => predict(stump(['a'], 1, 0, 0, 0), Float32Array.from([1])), /retrain/);
  });

  test('rows of any number score as the trees say, one page after another; NaN goes left, thresholds may be infinite', () => {
    const trees = Array.from({ length: 37 }, (_, t) => ({
      split: Array.from({ length: 15 }, (_, i) => (t * 3 + i) % 5),
      at: Array.from({ length: 15 }, (_, i) =>
        i === 4 ? Infinity : i === 9 ? -Infinity : Math.fround(((t * 13 + i * 7) % 17) / 16) + (t % 2) * 1e-9,
      ),
      leaf: Array.from({ length: 16 }, (_, i) => (i - 7.5) / (t + 3)),
    }));
    const model: TreeModel = { features: ['a', 'b', 'c', 'd', 'e'], depth: 4, base: -0.125, trees };
    // Many pages' worth of rows (past the code's first 64 KB of memory), then fewer again, then none.
    for (const count of [3, 9_000, 40, 0]) {
      const rows = Float32Array.from({ length: count * 5 }, (_, i) =>
        i % 41 === 7 ? NaN : ((i * 29) % 19) / 18,
      );
      const expected = Array.from({ length: count }, (_, r) => byLevels(model, rows, r));
      assert.deepEqual(Array.from(predict(model, rows)), expected, `${count} rows`);
    }
    const nan = Float32Array.from([NaN, NaN, NaN, NaN, NaN]);
    assert.equal(predict(model, nan)[0], byLevels(model, nan, 0));
  });

  test('a model trained on other features is refused at load', () => {
    assert.throws(() => checkModel(stump(['other'], 0, 0, 0, 0), FEATURE_NAMES), /retrain/);
    assert.doesNotThrow(() => checkModel(MAIN_CONTENT_MODEL.blocks, FEATURE_NAMES));
    assert.doesNotThrow(() => checkModel(MAIN_CONTENT_MODEL.context, CONTEXT_FEATURES));
  });

  test('blocks are the elements with text of their own, in page order, each with every feature', () => {
    const page = analysePage(parseHtml(ARTICLE), 'article', { texts: true })!;
    const blocks = page.blocks!;
    assert.deepEqual(blocks.texts, [
      'Home News About',
      'Rivers',
      'Rivers carry water, sediment and nutrients from the land to the sea, shaping valleys as they go.',
      'Their flow rises with rain and snowmelt, and falls in dry seasons, which sets the life along them.',
      'Copyright, all rights reserved.',
    ]);
    assert.equal(blocks.features.length, blocks.elements.length * FEATURE_COUNT);
    const kept = blocks.elements.map((_, i) => ruleKept(blocks, i));
    // The rules' choice is a feature: the article without the headline that repeats <title> (metadata.title).
    assert.deepEqual(kept, [false, false, true, true, false]);
    const feature = (row: number, name: string): number =>
      blocks.features[row * FEATURE_COUNT + FEATURE_NAMES.indexOf(name as (typeof FEATURE_NAMES)[number])]!;
    assert.equal(feature(0, 'inBoilerplateTag'), 1);
    assert.equal(feature(2, 'inMainOrArticle'), 1);
    assert.equal(feature(2, 'kind_article'), 1);
    assert.equal(feature(2, 'prev_isHeading'), 1, "the block before is the article's heading");
    assert.equal(feature(2, 'repeatedSelf'), Math.fround(Math.log1p(1)), 'one paragraph beside it, alike');
    assert.equal(feature(1, 'repeatedSelf'), 0, 'the heading has no alike sibling');
  });

  test("context features: each block's features, then first-stage verdicts around it", () => {
    const page = analysePage(parseHtml(ARTICLE), 'article')!;
    const blocks = page.blocks!;
    const first = Float32Array.from([0, 1, 1, 1, 0]);
    const rows = contextFeatures(blocks.features, containersOf(blocks.elements), first);
    const width = CONTEXT_FEATURES.length;
    assert.equal(rows.length, 5 * width);
    const at = (row: number, name: string): number => rows[row * width + CONTEXT_FEATURES.indexOf(name)]!;
    assert.equal(at(2, 'p'), 1);
    assert.equal(at(2, 'pPrev'), 1);
    assert.equal(at(0, 'pNext'), 1);
    assert.equal(at(2, 'pParent'), 1, 'every block under the article is content');
    assert.equal(at(0, 'pParent'), at(0, 'pPage'), "the nav's text is its own: its parent is the body");
    assert.deepEqual(
      [...rows.subarray(width, width + FEATURE_COUNT)],
      [...blocks.features.subarray(FEATURE_COUNT, 2 * FEATURE_COUNT)],
    );
  });

  test('the model decides block by block; when it keeps nothing, the rules choose (never empty)', () => {
    const render = (model: MainContentModel | null): string => renderMain(ARTICLE, 'article', model);
    const keepAll = { mode: 'model', at: 0 } as const;
    const everything: MainContentModel = {
      blocks: stump(FEATURE_NAMES, 0, 0, 5, 5),
      context: stump(CONTEXT_FEATURES, 0, 0, 5, 5),
      keep: {
        article: keepAll,
        product: keepAll,
        forum: keepAll,
        listing: keepAll,
        documentation: keepAll,
        other: keepAll,
      },
    };
    assert.match(render(everything), /Home[\s\S]*Rivers carry water[\s\S]*Copyright/);
    // Only blocks in the article: the inMainOrArticle feature decides.
    const inArticle = FEATURE_NAMES.indexOf('inMainOrArticle');
    const articleOnly = {
      ...everything,
      context: stump(CONTEXT_FEATURES, inArticle, 0.5, -5, 5),
      keep: { ...everything.keep, article: { mode: 'model', at: 0.5 } as const },
    };
    const md = render(articleOnly);
    assert.match(md, /Rivers carry water[\s\S]*Their flow rises/);
    assert.doesNotMatch(md, /Home|Copyright/);
    const nothing = {
      ...everything,
      context: stump(CONTEXT_FEATURES, 0, 0, -5, -5),
      keep: { ...everything.keep, article: { mode: 'model', at: 0.5 } as const },
    };
    assert.match(render(nothing), /Rivers carry water/, "the rules' choice stands");
    assert.doesNotMatch(render(nothing), /Copyright/);
  });

  test('keep rules: the model alone, only out of the rules, the model alone where the rules missed', () => {
    const byRules = Uint8Array.from([1, 1, 0, 0]);
    const page = (text: number[]): Parameters<typeof keepBlocks>[1] => ({ byRules, text });
    const final = Float32Array.from([0.9, 0.2, 0.8, 0.1]);
    const scored: (Uint8Array | undefined)[] = [];
    const finalOf = (only?: Uint8Array): Float32Array => {
      scored.push(only);
      return only ? final.map((p, i) => (only[i] ? p : 0)) : final;
    };
    const sureOf = (outside: number): Float32Array => Float32Array.from([0.9, 0.2, outside, 0.1]);
    const text = page([100, 100, 50, 50]);
    assert.deepEqual([...keepBlocks({ mode: 'rules', at: 1 }, text, sureOf(0), finalOf)], [1, 1, 0, 0]);
    assert.deepEqual([...keepBlocks({ mode: 'model', at: 0.5 }, text, sureOf(0), finalOf)], [1, 0, 1, 0]);
    // Within the rules, only the rules' blocks are scored; a block the first stage is unsure of stays out.
    scored.length = 0;
    const within = { mode: 'within-rules', at: 0.5 } as const;
    assert.deepEqual([...keepBlocks(within, text, sureOf(0.6), finalOf)], [1, 0, 0, 0]);
    assert.deepEqual(scored, [byRules]);
    // A block outside the rules that the first stage is surest of joins them.
    assert.deepEqual([...keepBlocks(within, text, sureOf(0.95), finalOf)], [1, 0, 1, 0]);
    assert.deepEqual([...keepBlocks(within, text, sureOf(0.87), finalOf)], [1, 0, 1, 0]);
    // More text outside the rules that the first stage is sure of than kept inside: the model decides alone.
    assert.deepEqual([...keepBlocks(within, page([40, 100, 50, 50]), sureOf(0.9), finalOf)], [1, 0, 1, 0]);
    assert.deepEqual([...keepBlocks(within, page([40, 100, 50, 50]), sureOf(0.75), finalOf)], [1, 0, 1, 0]);
    assert.deepEqual([...keepBlocks(within, page([40, 100, 50, 50]), sureOf(0.65), finalOf)], [1, 0, 0, 0]);
    // A block between two kept blocks follows its own probability: no neighbour rule keeps it (WCXB's
    // annotators leave out code that the model leaves out; a rule keeping it cost articles and docs).
    assert.deepEqual([...keepBlocks({ mode: 'model', at: 0.5 }, text, sureOf(0), finalOf)], [1, 0, 1, 0]);
  });

  test("a forum post's code is kept with the block it follows; other kinds of page keep the model's choice", () => {
    const paragraph =
      '<p>Pass resourceLimits when you create the worker, and it is stopped when it goes over.</p>';
    const html = `<html><body><div class="post">${paragraph}<pre><code>new Worker(file)</code></pre>
      <pre><code>worker.on('error', log)</code></pre></div><div class="aside"><pre>menu</pre></div></body></html>`;
    const blocks = analysePage(parseHtml(html), 'forum')!.blocks!;
    // The first two pre follow a block of the post; the aside's follows nothing of its own parent.
    assert.deepEqual([...codeAfterProse('forum', blocks.features)!], [0, 1, 1, 0]);
    assert.equal(codeAfterProse('article', blocks.features), undefined);
    assert.equal(codeAfterProse('documentation', blocks.features), undefined);

    const byRules = Uint8Array.from([1, 1, 1, 0]);
    const page = { byRules, text: [80, 20, 20, 4], code: Uint8Array.from([0, 1, 1, 0]) };
    const p = Float32Array.from([0.9, 0.3, 0.2, 0.1]);
    const forum = { mode: 'model', at: 0.5 } as const;
    assert.deepEqual([...keepBlocks(forum, page, p, () => p)], [1, 1, 1, 0]);
    // Without the code rows (every other kind of page), the model's own choice.
    assert.deepEqual([...keepBlocks(forum, { byRules, text: page.text }, p, () => p)], [1, 0, 0, 0]);
  });

  test('an unsure model is widened step by step before the rules take over', () => {
    const page = { byRules: Uint8Array.from([1, 1, 1, 1]), text: [100, 100, 100, 100] };
    const unsure = Float32Array.from([0.45, 0.3, 0.1, 0.02]);
    const product = { mode: 'model', at: 0.6 } as const;
    // Nothing at 0.6: the bar comes down until the surest block is kept, and no further.
    const widened = keepBlocks(product, page, unsure, () => unsure);
    assert.deepEqual([...widened], [1, 0, 0, 0]);
    assert.ok(enoughKept(widened, page));
    // Sure of nothing at all: nothing is kept, and the caller falls back to the rules' choice.
    const none = Float32Array.from([0.02, 0.02, 0.02, 0.02]);
    const kept = keepBlocks(product, page, none, () => none);
    assert.deepEqual([...kept], [0, 0, 0, 0]);
    assert.ok(!enoughKept(kept, page));
    // Kept text must be some share of the rules' text, not only above a floor.
    assert.ok(!enoughKept(Uint8Array.from([1, 0, 0, 0]), { ...page, text: [30, 1000, 1000, 1000] }));
  });

  test('a relative bar follows how sure the model is of the page: never above `at`, never below the floor', () => {
    const byRules = Uint8Array.from([0, 0, 0, 0, 0]);
    const page = { byRules, text: [100, 100, 100, 100, 100] };
    const listing = { mode: 'model', at: 0.45, relative: 0.5 } as const;
    const keep = (p: number[]): number[] => {
      const q = Float32Array.from(p);
      return [...keepBlocks(listing, page, q, () => q)];
    };
    // Sure of its surest tenth (0.9): the bar is `at` itself, as without `relative`.
    assert.deepEqual(keep([0.9, 0.44, 0.3, 0.1, 0.05]), [1, 0, 0, 0, 0]);
    // Unsure of the whole page (a site it never saw): half of 0.6 is the bar, and the 0.35 block is kept.
    assert.deepEqual(keep([0.6, 0.35, 0.29, 0.1, 0.05]), [1, 1, 0, 0, 0]);
    // Half of 0.3 would be 0.15: the floor (0.2) holds.
    assert.deepEqual(keep([0.3, 0.21, 0.19, 0.1, 0.05]), [1, 1, 0, 0, 0]);
    // The surest tenth is weighed by text: a short sure block does not set the page's bar.
    const long = { byRules, text: [5, 400, 100, 100, 100] };
    const p = Float32Array.from([0.95, 0.5, 0.3, 0.26, 0.1]);
    assert.deepEqual([...keepBlocks(listing, long, p, () => p)], [1, 1, 1, 1, 0]);
    // Without `relative`, the bar is `at` on every page.
    const fixed = Float32Array.from([0.6, 0.35, 0.29, 0.1, 0.05]);
    assert.deepEqual([...keepBlocks({ mode: 'model', at: 0.45 }, page, fixed, () => fixed)], [1, 0, 0, 0, 0]);
  });

  test('inline elements follow the block they are part of', () => {
    const doc = parseHtml(
      `<body><div><p>Kept <a href="/x">linked words</a> and <em>emphasis</em>.</p></div><p>Dropped <b>bold</b>.</p></body>`,
    );
    const page = analysePage(doc, 'other')!;
    const keptRow = page.blocks!.elements.findIndex((el: Element) => el.children.length === 5);
    const model: MainContentModel = {
      blocks: stump(FEATURE_NAMES, 0, 0, 0, 0),
      context: stump(CONTEXT_FEATURES, FEATURE_NAMES.indexOf('position'), 0.3, 5, -5),
      keep: Object.fromEntries(
        ['article', 'product', 'forum', 'listing', 'documentation', 'other'].map((k) => [
          k,
          { mode: 'model', at: 0.5 },
        ]),
      ) as MainContentModel['keep'],
    };
    assert.equal(keptRow, 0);
    const main = pickMainContent(doc, 'other', model)!;
    const md = toMarkdown(main.roots, {
      base: new URL('https://example.test/'),
      removeBase64Images: true,
      skip: main.skip,
    });
    assert.equal(md, 'Kept [linked words](https://example.test/x) and *emphasis*.');
  });

  test('collapsed content: blocks apart that the model may reveal; the rules and a closed menu stay hidden', () => {
    const html = `<html><body>
      <nav aria-hidden="true"><ul><li><a href="/a">Shop</a></li><li><a href="/b">Help</a></li></ul></nav>
      <main><h1>Kettle</h1><p>A kettle that boils a litre of water in under three minutes, quietly.</p>
        <button aria-controls="specs">Specifications</button>
        <div id="specs" hidden><div style="display: none"><p>Capacity: 1.7 litres, stainless steel body.</p></div></div>
      </main></body></html>`;
    const visibleOnly = html
      .replace(/<nav[\s\S]*?<\/nav>/, '')
      .replace(/<div id="specs"[\s\S]*?<\/div><\/div>/, '');
    const page = analysePage(parseHtml(html), 'product', { texts: true, concealed: true })!;
    const blocks = page.blocks!;
    assert.deepEqual(blocks.concealed.texts, ['Shop', 'Help', 'Capacity: 1.7 litres, stainless steel body.']);
    // The visible blocks, their features and the page's text are those of the page without its hidden parts.
    const plain = analysePage(parseHtml(visibleOnly), 'product', { texts: true })!;
    // Not asked for, concealed blocks cost nothing: neither measured nor featured.
    const skipped = analysePage(parseHtml(html), 'product', { texts: true })!;
    assert.deepEqual(skipped.blocks!.concealed.texts, []);
    assert.deepEqual(skipped.blocks!.features, blocks.features);
    assert.deepEqual(blocks.texts, plain.blocks!.texts);
    assert.deepEqual(blocks.features, plain.blocks!.features);
    assert.equal(page.stats.get(page.body)!.text, plain.stats.get(plain.body)!.text);

    const render = (model: MainContentModel | null): string => renderMain(html, 'product', model);
    const byLinks = (keep: KeepRule): MainContentModel => ({
      blocks: stump(FEATURE_NAMES, 0, 0, 0, 0),
      // Keeps every block that is not all links.
      context: stump(CONTEXT_FEATURES, FEATURE_NAMES.indexOf('ownLinkDensity'), 0.5, 5, -5),
      keep: Object.fromEntries(
        ['article', 'product', 'forum', 'listing', 'documentation', 'other'].map((k) => [k, keep]),
      ) as MainContentModel['keep'],
    });
    const md = render(byLinks({ mode: 'model', at: 0.5, reveal: 0.5 }));
    assert.match(
      md,
      /A kettle that boils[\s\S]*Capacity: 1\.7 litres/,
      'revealed through both hidden wrappers',
    );
    assert.doesNotMatch(md, /Shop|Help/, 'a concealed block the model leaves out stays hidden');
    // Without a reveal threshold, within the rules' choice, or by the rules alone: nothing concealed is shown.
    for (const hidden of [
      render(byLinks({ mode: 'model', at: 0.5 })),
      render(byLinks({ mode: 'within-rules', at: 0.5, reveal: 0.5 })),
      render(null),
    ]) {
      assert.match(hidden, /A kettle that boils/);
      assert.doesNotMatch(hidden, /Capacity|Shop/);
    }
  });

  test('past MAX_MODEL_BLOCKS blocks the rules decide, and no features are computed', () => {
    const rows = Array.from(
      { length: MAX_MODEL_BLOCKS + 1 },
      (_, i) => `<p>Line ${i} of a very long page.</p>`,
    );
    const doc = parseHtml(
      `<html><body><nav><a href="/">Home</a></nav><main>${rows.join('')}</main></body></html>`,
    );
    const page = analysePage(doc, 'other')!;
    assert.equal(page.blocks, null);
    const main = pickMainContent(doc, 'other')!;
    assert.deepEqual(
      main.roots,
      pickMainContent(doc, 'other', null)!.roots,
      "the rules' choice, as with no model",
    );
    assert.equal(main.roots[0]!.type, 'tag');
  });
});
