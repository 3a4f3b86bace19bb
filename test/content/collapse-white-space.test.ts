import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collapseWhiteSpace } from '../../src/content/parse/dom.js';

/** The definition: every run of `\s` one space, when there is white space other than single plain spaces. */
const expected = (text: string): string => (/\s\s|[^\S ]/.test(text) ? text.replace(/\s+/g, ' ') : text);

test('white space is collapsed as `\\s` defines it, for every UTF-16 code unit and runs of them', () => {
  for (let c = 0; c < 0x10000; c++) {
    const text = `a${String.fromCharCode(c)}b`;
    assert.equal(collapseWhiteSpace(text), expected(text), `U+${c.toString(16)}`);
  }
  const alphabet = [
    'a',
    'é',
    ' ',
    '\n',
    '\t',
    '\r',
    '\v',
    '\f',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u200b',
  ];
  alphabet.push('\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u0085', '\u180e');
  let seed = 3;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 20_000; i++) {
    let text = '';
    for (let n = Math.floor(next() * 12); n > 0; n--) text += alphabet[Math.floor(next() * alphabet.length)];
    assert.equal(collapseWhiteSpace(text), expected(text), JSON.stringify(text));
  }
  // Text with nothing to collapse is answered as it is.
  const plain = 'one two three';
  assert.equal(collapseWhiteSpace(plain), plain);
});
