import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownOf } from '../helpers.js';
import { withoutRepeatedParagraphs } from '../../src/content/main-content/repeated-paragraphs.js';

const count = (text: string, part: string): number => text.split(part).length - 1;

const QUOTED = 'Restarting the worker after the upgrade fixed the timeouts for me';

/** A thread of five posts; the third quotes the first post word for word. */
function thread(): string {
  const reply = (i: number, body: string): string =>
    `<div class="post"><span class="author">user${i}</span>${body}</div>`;
  const posts = [
    reply(0, `<p>${QUOTED}, but only once the cache was cleared as well.</p>`),
    reply(1, `<p>Same problem on our cluster since Tuesday; the logs show nothing unusual at all.</p>`),
    reply(
      2,
      `<blockquote><p>${QUOTED}, but only once the cache was cleared as well.</p></blockquote><p>Clearing the cache worked here too, thanks for writing it down.</p>`,
    ),
    reply(3, `<p>Which version were you upgrading from when the timeouts started for you?</p>`),
    reply(4, `<p>From the previous minor release; the notes say nothing about the cache.</p>`),
  ];
  return `<html><head><title>Upgrade broke timeouts</title>
    <script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Upgrade broke timeouts"}</script>
    </head><body><main><h1>Upgrade broke timeouts</h1>${posts.join('')}</main></body></html>`;
}

describe('repeated paragraphs in main content', () => {
  test("a thread's quote of an earlier post is left out; the reply and every post stay", () => {
    const md = markdownOf(thread(), true);
    assert.equal(count(md, QUOTED), 1);
    assert.match(md, /Clearing the cache worked here too/);
    for (const line of ['Same problem on our cluster', 'Which version were you', 'From the previous minor'])
      assert.match(md, new RegExp(line));
  });

  test('code, list items, headings and a sentence every item repeats stay when apart', () => {
    const line = 'Clear the cache on every node of the cluster first, then restart.';
    const field = 'Ships within two working days from our warehouse in Leeds.';
    const code = '```\ncache clear --all --nodes everywhere\n\ncache clear --all --nodes everywhere\n```';
    const md = [
      `## ${line}`,
      'First',
      code,
      `- ${line}`,
      ...['Item A', 'Item B', 'Item C'].flatMap((item) => [item, field]),
      `## ${line}`,
      'Last',
      `- ${line}`,
    ].join('\n\n');
    assert.equal(withoutRepeatedParagraphs(md, 'forum'), md);
    // Its copy found twice, a paragraph is left out once, with its blank line.
    assert.equal(
      withoutRepeatedParagraphs(`${line}\n\n${code}\n\n> ${line}`, 'product'),
      `${line}\n\n${code}`,
    );
    assert.equal(withoutRepeatedParagraphs(`${line}\n\n${line}`, 'documentation'), `${line}\n\n${line}`);
  });

  test("a run of blocks repeated right after itself (a carousel's cloned slides) is kept once", () => {
    const slide =
      '## Colours that let you shine\n\nFour finishes to match the way you work and play every day.';
    const md = ['# Tablet', slide, slide, slide, '## Specifications', 'Weight: 523 g'].join('\n\n');
    const once = ['# Tablet', slide, '## Specifications', 'Weight: 523 g'].join('\n\n');
    for (const kind of ['product', 'listing', 'other'] as const)
      assert.equal(withoutRepeatedParagraphs(md, kind), once);
    // Articles and docs keep theirs (a sentence under each language's tab); short labels always stay.
    for (const kind of ['article', 'documentation'] as const)
      assert.equal(withoutRepeatedParagraphs(md, kind), md);
    const labels = ['Trail shoe', 'Trail shoe', 'Road shoe', 'Road shoe'].join('\n\n');
    assert.equal(withoutRepeatedParagraphs(labels, 'listing'), labels);

    const slides = Array.from(
      { length: 3 },
      () =>
        `<div class="slide"><h2>Colours that let you shine</h2><p>Four finishes to match the way you work and play every day.</p></div>`,
    ).join('');
    const page = `<html><head><title>Tablet</title><meta property="og:type" content="product"></head><body><main>
      <h1>Tablet</h1><p>${'A light tablet with a bright screen and a long battery life. '.repeat(5)}</p>
      <div class="highlights">${slides}</div><h2>Specifications</h2><p>Weight: 523 grams, with the cover on.</p></main></body></html>`;
    const main = markdownOf(page, true);
    assert.equal(count(main, 'Four finishes to match'), 1, main);
    assert.equal(count(markdownOf(page, false), 'Four finishes to match'), 3);
  });

  test('an article keeps a paragraph it repeats', () => {
    const day = (n: number): string =>
      `<h2>Day ${n}</h2><p>Breakfast: two eggs, a slice of whole-grain toast and one cup of berries.</p>`;
    const prose = `<p>${'A week of simple meals that keep well and cost little to make. '.repeat(6)}</p>`;
    const md = markdownOf(
      `<html><head><title>Meal plan</title><meta property="og:type" content="article"></head>
      <body><article><h1>Meal plan</h1>${prose}${day(1)}${day(2)}</article></body></html>`,
      true,
    );
    assert.equal(count(md, 'Breakfast: two eggs'), 2);
  });
});
