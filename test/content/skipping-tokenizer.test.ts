import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Parser, Tokenizer } from 'htmlparser2';
import type { Handler } from 'htmlparser2';
import { articlePage } from '../../bench/article-site.js';
import { FastTokenizer } from '../../src/content/parse/skipping-tokenizer.js';

/** Every event the parser gives for `html`, with the source range it reports, through `tokenizer`. */
function events(html: string, tokenizer: typeof Tokenizer, chunks = 1): string[] {
  const out: string[] = [];
  const at = (): string => `${parser.startIndex}-${parser.endIndex}`;
  const handler: Partial<Handler> = {
    onopentag: (name, attribs) => out.push(`open ${name} ${JSON.stringify(attribs)} ${at()}`),
    onclosetag: (name, implied) => out.push(`close ${name} ${implied} ${at()}`),
    ontext: (data) => out.push(`text ${JSON.stringify(data)} ${at()}`),
    oncomment: (data) => out.push(`comment ${JSON.stringify(data)} ${at()}`),
    oncdatastart: () => out.push(`cdata ${at()}`),
    onprocessinginstruction: (name, data) => out.push(`pi ${name} ${JSON.stringify(data)} ${at()}`),
  };
  const parser = new Parser(handler, {
    lowerCaseTags: true,
    lowerCaseAttributeNames: true,
    decodeEntities: true,
    Tokenizer: tokenizer,
  });
  const size = Math.ceil(html.length / chunks);
  for (let i = 0; i < html.length; i += size) parser.write(html.slice(i, i + size));
  parser.end();
  return out;
}

const same = (html: string, chunks = 1): void =>
  assert.deepEqual(events(html, FastTokenizer, chunks), events(html, Tokenizer, chunks), html.slice(0, 200));

/** A deterministic generator of markup made of the pieces the tokenizer treats differently. */
function randomMarkup(seed: number, pieces: number): string {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const parts = [
    'text ',
    'a&amp;b',
    '&',
    '&#x41;',
    '&notanentity;',
    '&lt',
    '<',
    '>',
    '"',
    "'",
    '<p class="a&amp;b">',
    "<a href='/x?a=1&b=2' title=x&amp;y>",
    '<img src=a.png alt="a > b">',
    '</p>',
    '</a>',
    '<br/>',
    '<!-- c -->',
    '<!-->',
    '<!--- x --->',
    '<![CDATA[ d ]]>',
    '<!doctype html>',
    '<?xml x?>',
    '<script>if (a < b && c) { x = "</p>"; }</script>',
    '<script>',
    '</script>',
    '<style>p > a { color: red }</style>',
    '<title>a &amp; b < c</title>',
    '<textarea>x & y</textarea>',
    '<svg><text><![CDATA[a < b]]></text></svg>',
    '<div data-x="unterminated',
    "<span title='&quot;'>",
    '\n',
    '\u00e9\u2019',
    '<DIV CLASS="x" Data-Long-Name=1 hidden>',
    '<a\thref=x\n/>',
    '</DiV >',
    '</span\n>',
    '<p id=a/b>',
    '<x-custom-element foo=bar baz>',
    '<img src=x alt=>',
    '<input disabled/>',
    '<div class',
    '<br',
    '</em',
  ];
  let html = '';
  for (let i = 0; i < pieces; i++) html += parts[next(parts.length)];
  return html;
}

describe('the skipping tokenizer gives what htmlparser2 gives', () => {
  test('on the fixture pages and a bench article', () => {
    const dir = join(import.meta.dirname, '../fixtures/formats');
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.html')))
      same(readFileSync(join(dir, file), 'utf8'));
    same(articlePage(7, 5000));
  });

  test('on text, attribute values, raw text and comments with and without entities', () => {
    for (const html of [
      '',
      'plain text only',
      'a & b &amp; c &#39; d',
      '<p>one</p>tail without tag',
      '<a href="x&amp;y" title=\'a&quot;b\' data-n=1&amp;2>t</a>',
      '<a href="no closing quote',
      "<a href='no closing quote",
      '<script>var s = "<b>"; if (a<b) {}</script><p>after</p>',
      '<script>never closed',
      '<style>a{}</style',
      '<!-- a comment -- with dashes -->x',
      '<!-- never closed',
      '<title>A &amp; B</title><textarea>&lt;x&gt;</textarea>',
      '<p>trailing &',
      '<p>trailing &am',
      '<plaintext><p>all text & more',
      '<DIV CLASS="x" Data-Long-Name=1 hidden>t</DIV >',
      '<a\thref=x\n/><p\fid=y\r>z</p\n>',
      '<x-custom-element foo=bar baz=>x</x-custom-element>',
      '<div cla',
      '<div class',
      '<sec',
      '</sect',
    ])
      same(html);
  });

  test('on generated markup, whole and written in chunks', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const html = randomMarkup(seed, 40);
      same(html);
      same(html, 7);
    }
  });
});
