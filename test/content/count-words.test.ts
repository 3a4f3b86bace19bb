import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countWords } from '../../src/content/text-stats.js';

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
    }
  });
});
