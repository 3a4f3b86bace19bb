import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import picomatch from 'picomatch';
import { globList } from '../../src/crawl/glob.js';
import { BadRequestError } from '../../src/errors.js';

/** picomatch as the crawl used it before the linear-time compiler: the reference for every answer. */
const reference = (globs: string[]) => picomatch(globs, { dot: true });

const refusal = (globs: string[]): string => {
  try {
    globList(globs, 'includePaths');
  } catch (err) {
    assert.ok(err instanceof BadRequestError, String(err));
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(globs)} to be refused`);
};

/** A small deterministic generator (mulberry32: the same globs on every run). */
function random(seed: number): <T>(items: readonly T[]) => T {
  let state = seed;
  return (items) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return items[Math.floor(unit * items.length)]!;
  };
}

/** What globs are built from: everything the compiler supports, and things it refuses. */
const PIECES = [
  ...['a', 'b', 'ab', 'x', '.', '-', '.html', '*', '*', '**', '?', '/', '/', '/', '!', '+', '@', '$', '^'],
  ...[',', '}', ']', '[', '{x}', '.*', '*.', '***', '/**/', '**/**', '/**', '**/', '{,}', '{}'],
  ...['[ab]', '[a-c]', '[^a]', '[!a]', '[]a]', '[a/b]', '[.]', '[-a]', '[a-]', '[!]', '[^!]', '[a-c-e]'],
  ...['[\\]]', '[a\\-c]', '[^/a]', '[^]a]', '[*]', '[?]', '[{]', '[,]', '[z-a]', '[[:alpha:]]'],
  ...['{a,b}', '{a,}', '{,b}', '{a,{b,c}}', '{*,a}', '{a*,b}', '{/a,/b/*}', '{a/*,b}', '{{a,b},c}'],
  ...['\\*', '\\[', '\\{', '\\!', '\\/', '\\.', '\\,', '\\}', '{a\\,b}', '\\d'],
  ...['{**,a}', '{/**,b}', '(a)', '|', '{1..3}', '"a"', '{.,a}', '{a.*}', '+(a)', '@(a|b)', '!(a)'],
];
const PREFIXES = ['', '', '/', '/', '/', '!', '!/', '**/', './', '!!/', '*'];
const SEGMENTS = ['a', 'b', 'ab', 'c', 'x', 'x.html', '.a', 'a.b', '*', '!', '[ab]', '-', 'a-b', ''];
const MORE_SEGMENTS = ['.html', 'bb', 'a+', '{a}', ',', '@', '$', '^', 'ba', 'abc', '[!a]'];

/** Paths as the URL parser hands them to the matcher (no dot segments; some characters escaped). */
function paths(pick: <T>(items: readonly T[]) => T, count: number): string[] {
  const out = new Set<string>(['/', '/a', '/a/', '/blog', '/blog/', '/blog/a/b', '//', '/a//b']);
  while (out.size < count) {
    let path = '';
    const depth = pick([0, 1, 1, 2, 2, 3, 4]);
    for (let i = 0; i < depth; i++) path += `/${pick([...SEGMENTS, ...MORE_SEGMENTS])}`;
    if (path === '' || pick([0, 0, 0, 1]) === 1) path += '/';
    if (new URL(`http://site.test${path}`).pathname === path) out.add(path);
  }
  return [...out];
}

const REFUSALS = [
  /extglob patterns are not supported/,
  /is regex syntax in globs/,
  /quoted globs are not supported/,
  /ranges are not supported/,
  /'\*\*' (inside|before) braces is not supported/,
  /'\.\*' inside braces is not supported/,
  /'\+' after a class or brace/,
  /POSIX classes/,
  /a class range runs backwards/,
  /escape only punctuation/,
  /unclosed '[[{]'/,
];

describe('glob compiler', () => {
  test('answers as picomatch for the globs callers write', () => {
    const cases: [string, string[], string[]][] = [
      ['/blog/**', ['/blog', '/blog/', '/blog/a', '/blog/a/b'], ['/blogx', '/x/blog/a']],
      ['/blog/*', ['/blog/a', '/blog/a/'], ['/blog', '/blog/', '/blog/a/b']],
      ['/docs/*/api/**', ['/docs/v1/api', '/docs/v1/api/x/y'], ['/docs/api', '/docs/a/b/api']],
      ['/**/*.pdf', ['/a/b.pdf', '/a/b/c.pdf'], ['/b.pdf', '/a/b.pdfx']],
      ['**/*.pdf', ['/b.pdf', '/a/b.pdf'], ['/a/b.pdfx']],
      ['/{en,de}/products/*', ['/en/products/x'], ['/fr/products/x', '/en/products']],
      ['/a?c', ['/abc'], ['/ac', '/a/c']],
      ['/[a-c]x', ['/bx'], ['/dx']],
      ['/[^a]x', ['/bx'], ['/ax', '//x']],
      ['/\\*', ['/*'], ['/a']],
      ['!/private/**', ['/public'], ['/private', '/private/x']],
      ['/{a,{b,c}}/*', ['/c/x'], ['/d/x']],
    ];
    for (const [glob, yes, no] of cases) {
      const match = globList([glob], 'includePaths');
      const pm = reference([glob]);
      for (const path of [...yes, ...no]) {
        assert.equal(match(path), yes.includes(path), `${glob} on ${path}`);
        assert.equal(pm(path), yes.includes(path), `picomatch: ${glob} on ${path}`);
      }
    }
  });

  test('extglobs and what picomatch reads as regex syntax are a 400 naming the field', () => {
    for (const extglob of ['/+(a)', '/*(a)', '/?(a)', '/@(a)', '/!(a)', '/+(a)+(a)+(a)+(a)b']) {
      assert.equal(
        refusal(['/a', '/b', extglob]),
        'includePaths[2]: extglob patterns are not supported',
        extglob,
      );
    }
    assert.match(refusal(['/a|b']), /^includePaths\[0\]: '\|' is regex syntax in globs/);
    assert.match(refusal(['/(a)']), /^includePaths\[0\]: '\(' is regex syntax/);
    assert.match(refusal(['/[ab]+']), /^includePaths\[0\]: '\+' after a class or brace/);
    assert.match(refusal(['/{1..9}']), /ranges are not supported/);
    assert.match(refusal(['/{a,b']), /unclosed '\{'/);
    assert.match(refusal(['/\\d']), /escape only punctuation/);
    assert.match(refusal(['/[[:alpha:]]']), /POSIX classes/);
  });

  test('differential: the same answers as picomatch for thousands of generated globs and paths', () => {
    const pick = random(37);
    const subjects = paths(pick, 250);
    let compared = 0;
    let refused = 0;
    for (let n = 0; n < 2500; n++) {
      let glob = pick(PREFIXES);
      const length = pick([1, 2, 3, 4, 5, 6]);
      for (let i = 0; i < length; i++) glob += pick(PIECES);
      glob ||= 'a';
      let match: (path: string) => boolean;
      try {
        match = globList([glob], 'includePaths');
      } catch (err) {
        const message = (err as Error).message;
        assert.ok(
          REFUSALS.some((r) => r.test(message)),
          `${glob}: refused for an undocumented reason: ${message}`,
        );
        refused++;
        continue;
      }
      const pm = reference([glob]);
      for (const path of subjects) {
        assert.equal(match(path), pm(path), `${JSON.stringify(glob)} on ${JSON.stringify(path)}`);
        compared++;
      }
    }
    assert.ok(refused < 1200 && compared > 300_000, `${refused} refused, ${compared} compared`);
  });

  test('differential: lists of globs, negated ones among them, answer as picomatch given the list', () => {
    const pick = random(101);
    const subjects = paths(pick, 150);
    const supported = ['/a/**', '!/a/b*', '/**/*.html', '/{a,b}/?', '!**/x', '/[ab]*', '*', '/a', '**/b/**'];
    for (let n = 0; n < 200; n++) {
      const globs = [pick(supported), pick(supported), pick(supported)];
      const match = globList(globs, 'includePaths');
      const pm = reference(globs);
      for (const path of subjects) assert.equal(match(path), pm(path), `${JSON.stringify(globs)} on ${path}`);
    }
  });
});
