import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PageTrace } from '../../src/content/page-trace.js';
import { joinSentences, placeQuotes, sentencesOf } from '../../src/content/quotes.js';

const MARKDOWN = `# Backpressure in streams

When a consumer is slower than its producer, data piles up. **Backpressure** is how the consumer says *slow down*. See [the docs](https://example.test/docs) for e.g. details!

- First item here. Second part.

| Size | Price |
| --- | --- |
| 128GB | $799 |

\`\`\`js
const a = 1;
\`\`\``;

describe('quotes: a page as its own sentences', () => {
  test('Markdown marks are gone; headings, items, rows and code lines stand apart', () => {
    assert.deepEqual(
      sentencesOf(MARKDOWN).map((s) => [s.block, s.text]),
      [
        [0, 'Backpressure in streams'],
        [1, 'When a consumer is slower than its producer, data piles up.'],
        [1, 'Backpressure is how the consumer says slow down.'],
        [1, 'See the docs for e.g. details!'],
        [2, 'First item here.'],
        [2, 'Second part.'],
        [3, 'Size | Price'],
        [4, '128GB | $799'],
        [5, 'const a = 1;'],
      ],
    );
  });

  test('a long line of opening marks never closed is read as its text, once', () => {
    const marks = ['[a]('.repeat(50_000), ' **a'.repeat(50_000), '\\['.repeat(100_000)];
    const [links, bold, brackets] = marks.map((line) => sentencesOf(`${line}\n`));
    assert.equal(links![0]!.text, marks[0]);
    assert.equal(bold![0]!.text, marks[1]!.trim());
    assert.equal(brackets![0]!.text, '['.repeat(100_000));
    assert.deepEqual(
      sentencesOf(`| a |\n|${' '.repeat(100_000)}--|\n| b |`).map((s) => s.text),
      ['a', 'b'],
    );
  });

  test('quotes are placed after normalizing; invented or too short ones are dropped with a reason', () => {
    const sentences = sentencesOf(MARKDOWN);
    const { indices, dropped } = placeQuotes(sentences, [
      'BACKPRESSURE  is how the consumer says slow down.',
      'data piles up',
      'the consumer says slow down. See the docs',
      'Streams never need backpressure at all.',
      'Backpressure in streams',
    ]);
    assert.deepEqual(indices, [0, 2, 3]);
    assert.deepEqual(
      dropped.map((d) => d.reason),
      ['not a sentence of the page, and too short to place as part of one', 'does not occur in the page'],
    );
    assert.equal(
      joinSentences(sentences, indices),
      'Backpressure in streams\n\nBackpressure is how the consumer says slow down. See the docs for e.g. details!',
    );
  });
});

describe('page trace: values a page bears out', () => {
  const trace = new PageTrace('Price: $1,299.00 only. Was €19,90! In stock – ships today. Costs 119.99 USD');
  test('amounts as the page writes them, never inside another number', () => {
    assert.ok(trace.hasAmount(1299));
    assert.ok(trace.hasAmount(19.9));
    assert.ok(trace.hasAmount(119.99));
    assert.ok(!trace.hasAmount(19.99), '119.99 holds 19.99 only inside a larger number');
    assert.ok(!trace.hasAmount(9.99));
  });
  test('currencies by code or sign; text after normalizing dashes and case', () => {
    assert.ok(trace.hasCurrency('USD'));
    assert.ok(trace.hasCurrency('EUR'));
    assert.ok(!trace.hasCurrency('GBP'));
    assert.ok(trace.has('in stock - ships'));
    assert.ok(!trace.has('out of stock'));
  });
});
