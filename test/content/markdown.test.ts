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
