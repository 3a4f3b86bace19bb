import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endsSentence, shares } from '../../src/content/main-content/block-text.js';
import { visibleLength } from '../../src/content/parse/page-signals.js';

// The per-character counts read every block's text on every page: each is checked against the plain reading
// it stands for, on strings made of the characters where they could differ.
const PIECES = [
  'a',
  'Z',
  '7',
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '.',
  '!',
  '?',
  ':',
  ';',
  '。',
  '！',
  '？',
  '"',
  "'",
  ')',
  ']',
];
const MORE = [
  'É',
  'é',
  'Ω',
  'ж',
  'ß',
  '中',
  '\u2003',
  '\u3000',
  '\ud83d\ude00',
  '\ud83d',
  '\u0000',
  '\u007f',
  '$',
];

/** Every string of up to `length` pieces of `alphabet`. */
function* strings(alphabet: string[], length: number): Generator<string> {
  yield '';
  let level = [''];
  for (let n = 1; n <= length; n++) {
    level = level.flatMap((s) => alphabet.map((c) => s + c));
    yield* level;
  }
}

test('endsSentence answers as /[.!?:;。！？]["\')\\]]?$/ does', () => {
  const regex = /[.!?:;。！？]["')\]]?$/;
  for (const s of strings([...PIECES, ...MORE.slice(0, 4)], 3))
    assert.equal(endsSentence(s), regex.test(s), JSON.stringify(s));
});

test('visibleLength counts the characters above code 32 other than a no-break space', () => {
  for (const s of strings([...PIECES.slice(0, 8), ...MORE], 3)) {
    let expected = 0;
    for (let i = 0; i < s.length; i++) expected += +(s.charCodeAt(i) > 32 && s.charCodeAt(i) !== 160);
    assert.equal(visibleLength(s), expected, JSON.stringify(s));
  }
  assert.equal(visibleLength(' a\u00a0b\n'), 2);
});

test('shares counts digits among characters and capitals among letters of any cased script', () => {
  const plain = (text: string): [number, number] => {
    const length = Math.min(text.length, 400);
    let digits = 0;
    let upper = 0;
    let letters = 0;
    for (let i = 0; i < length; i++) {
      const c = text[i]!;
      if (c >= '0' && c <= '9') digits++;
      else if (c.toLowerCase() !== c.toUpperCase()) {
        letters++;
        if (c !== c.toLowerCase()) upper++;
      }
    }
    return [length > 0 ? digits / length : 0, letters > 0 ? upper / letters : 0];
  };
  for (const s of strings([...PIECES.slice(0, 6), ...MORE], 3))
    assert.deepEqual(shares(s), plain(s), JSON.stringify(s));
  assert.deepEqual(shares('7'.repeat(500)), [1, 0]);
});
