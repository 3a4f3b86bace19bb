import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { articlePage } from '../../bench/article-site.js';
import { countWords, countWordsUpTo, withoutUrls } from '../../src/content/text-stats.js';
import { renderPage } from '../../src/pipeline/page-document.js';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Words by their definition: letters, digits and marks, joined by runs of `'`, `-`, `_` or `’`. */
const WORD = /[\p{L}\p{N}\p{M}]+(?:['\-_’]+[\p{L}\p{N}\p{M}]+)*/gu;
/** The same count from regular expressions: each Han or kana character a word, then the words between. */
const expected = (text: string): number =>
  (text.match(CJK)?.length ?? 0) + (text.replace(CJK, ' ').match(WORD)?.length ?? 0);

describe('countWords', () => {
  test('counts words with their inner joiners, and each Han or kana character', () => {
    const cases: [string, number][] = [
      ['', 0],
      ['one two  three\nfour', 4],
      ["don't well-known snake_case it’s", 4],
      ['-leading trailing- -- _ a--b', 3],
      ['x1 2x 42 3.14', 5],
      ['naïve café Ωmega δ', 4],
      ['漢字 かな カタカナ', 8],
      ['a漢b', 3],
      ['e\u0301clair 😀 𝒳y', 2],
    ];
    for (const [text, words] of cases) assert.equal(countWords(text), words, JSON.stringify(text));
  });

  test('agrees with the definition on generated text', () => {
    const alphabet = [
      'a',
      'Z',
      '7',
      ' ',
      '\n',
      "'",
      '-',
      '_',
      '’',
      '.',
      ',',
      'é',
      'ß',
      '漢',
      'カ',
      '\u0301',
      '😀',
      '𝒳',
      '\uD800',
      '·',
    ];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let n = Math.floor(next() * 40); n > 0; n--)
        text += alphabet[Math.floor(next() * alphabet.length)];
      assert.equal(countWords(text), expected(text), JSON.stringify(text));
      const cap = Math.floor(next() * 8);
      assert.equal(countWords(text, cap), Math.min(expected(text), cap), `${JSON.stringify(text)} to ${cap}`);
    }
  });

  test("up to a number, a page's Markdown counts as its whole count does, as far as that", () => {
    for (let n = 0; n < 8; n++) {
      const markdown = renderPage(
        {
          url: 'https://example.com/a',
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: Buffer.from(articlePage(n * 13, 10_000)),
          redirects: [],
        },
        {
          sourceUrl: 'https://example.com/a',
          formats: ['markdown'],
          onlyMainContent: false,
          removeBase64Images: true,
          detectionReason: null,
        },
      ).document.markdown!;
      const all = countWords(withoutUrls(markdown));
      assert.ok(all > 2000, `${all} words`);
      for (const atMost of [0, 1, 80, 500, all - 1, all, all + 1]) {
        assert.equal(countWordsUpTo(markdown, atMost), Math.min(all, atMost), `page ${n}, up to ${atMost}`);
      }
    }
  });
});
