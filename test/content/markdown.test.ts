import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownOf } from '../helpers.js';

describe('Markdown rendering', () => {
  test('a paragraph of only spaces, zero-width spaces or joiners renders nothing; one with text keeps it', () => {
    const page = `<html><body><main>
      <p>First paragraph of the page, long enough to be content.</p>
      <p>&nbsp;</p><p>\u200b</p><div>\u2060 \ufeff</div><p>\u3000\u202f</p>
      <p>\u200bSecond paragraph\u200b of the page.</p>
    </main></body></html>`;
    for (const only of [false, true])
      assert.equal(
        markdownOf(page, only),
        'First paragraph of the page, long enough to be content.\n\nSecond paragraph\u200b of the page.',
      );
  });
});

describe('code blocks are put back by markers the page cannot write', () => {
  test("text spelling the old marker stays text: no 'undefined', no copy of another code block", () => {
    const forged = '\uE0010\uE002 and \uE0017\uE002';
    const page = `<html><body><main><p>Before ${forged} after.</p><pre><code>const a = 1;</code></pre></main></body></html>`;
    for (const only of [false, true]) {
      const markdown = markdownOf(page, only);
      assert.doesNotMatch(markdown, /undefined/);
      assert.equal(markdown.match(/const a = 1;/g)?.length, 1, markdown);
      assert.ok(markdown.includes(`Before ${forged} after.`), markdown);
    }
  });
});
