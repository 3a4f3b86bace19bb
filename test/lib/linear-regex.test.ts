import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BadRequestError } from '../../src/errors.js';
import {
  LinearRegexList,
  MAX_LIST_INSTRUCTIONS,
  MAX_PATTERN_INSTRUCTIONS,
  compileLinear,
} from '../../src/lib/linear-regex.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof BadRequestError, `a BadRequestError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected a refusal');
};

describe('linear regex', () => {
  test('patterns RE2 and JavaScript read alike give the same answers', () => {
    const cases: [string, string[]][] = [
      ['^/blog/.*', ['/blog/', '/blog/a/b', '/blogx', '/x/blog/']],
      ['/docs/v[0-9]+/', ['/docs/v2/x', '/docs/v/x', '/a/docs/v10/']],
      ['\\.pdf$', ['/a.pdf', '/a.pdf?x', '/apdf']],
      ['^/(en|de)/products/[^/]+$', ['/en/products/x', '/fr/products/x', '/de/products/x/y']],
      ['(?:a|ab)(?:c|bcd)', ['abcd', 'ac', 'abc', 'x']],
      ['^[\\w.-]+@[\\w-]+\\.\\w+$', ['a.b@c-d.io', 'a@b', '@b.c']],
      ['colou?r', ['color', 'colour', 'colr']],
      ['^\\d{4}-\\d{2}-\\d{2}$', ['2024-05-01', '2024-5-01']],
      ['', ['', 'anything']],
    ];
    for (const [pattern, subjects] of cases) {
      const rx = compileLinear(pattern, 'p');
      for (const s of subjects) assert.equal(rx.test(s), new RegExp(pattern).test(s), `${pattern} on ${s}`);
    }
  });

  test('JavaScript spellings RE2 can run are accepted; flags i, m, s apply', () => {
    assert.equal(compileLinear('^\\u0041\\u{1F600}$', 'p').test('A😀'), true);
    assert.equal(compileLinear('^(?<year>\\d{4})$', 'p').test('2024'), true);
    assert.equal(compileLinear('^[^]$', 'p').test('\n'), true);
    assert.equal(compileLinear('^ABC$', 'p', { flags: 'i' }).test('abc'), true);
    assert.equal(compileLinear('^b$', 'p', { flags: 'm' }).test('a\nb'), true);
    assert.equal(compileLinear('^a.b$', 'p', { flags: 's' }).test('a\nb'), true);
    assert.match(
      refusal(() => compileLinear('a', 'p', { flags: 'g' })),
      /^p: regular expression flag 'g'/,
    );
  });

  test('lookarounds and backreferences are a 400 naming the field', () => {
    for (const [pattern, named] of [
      ['^(?=a)', 'lookahead (?='],
      ['^(?!a)', 'lookahead (?!'],
      ['(?<=a)b', 'lookbehind (?<='],
      ['(?<!a)b', 'lookbehind (?<!'],
      ['(a)\\1', 'backreference \\1'],
      ['(?<n>a)\\k<n>', 'named backreference'],
    ]) {
      const message = refusal(() => LinearRegexList.compile(['^/ok', pattern!], 'includePaths'));
      assert.ok(message.startsWith(`includePaths[1]: ${named}`), message);
      assert.match(message, /linear-time engine \(RE2 syntax\)/);
    }
    // In a class these are plain characters, not constructs.
    assert.equal(compileLinear('[(?=]', 'p').test('='), true);
  });

  test('invalid and oversized patterns are a 400 naming the field', () => {
    assert.match(
      refusal(() => compileLinear('a[', 'excludePaths[3]')),
      /^excludePaths\[3\]: invalid regular/,
    );
    assert.match(
      refusal(() => compileLinear('a{2,1}', 'p')),
      /^p: invalid regular expression: invalid repeat/,
    );
    const big = `.{${MAX_PATTERN_INSTRUCTIONS + 10}}`;
    assert.match(
      refusal(() => compileLinear(big, 'p')),
      /^p: pattern too complex \(\d+ instructions, at most 500\)/,
    );
    const many = Array.from({ length: 100 }, (_, i) => `^/section-${i}/.{${MAX_LIST_INSTRUCTIONS / 60}}`);
    assert.match(
      refusal(() => LinearRegexList.compile(many, 'includePaths')),
      /^includePaths: pattern too complex/,
    );
  });

  test('a list reports which patterns match, reading the subject once', () => {
    const list = LinearRegexList.compile(['^/a', 'b$', 'x'], 'paths');
    assert.deepEqual(list.matching('/ab'), [0, 1]);
    assert.deepEqual(list.matching('/zzz'), []);
    assert.equal(list.test('/x'), true);
    assert.equal(LinearRegexList.compile([], 'paths').test('/x'), false);
    const anchored = LinearRegexList.compile(['/a'], 'paths', { anchored: true });
    assert.deepEqual([anchored.test('/a/b'), anchored.test('/x/a')], [true, false]);
  });

  test('catastrophic patterns for a backtracking engine run in one pass', { timeout: 60_000 }, () => {
    // Each of these takes a backtracking engine about 2^n steps on n a's: minutes at 40, never at 100,000.
    const subject = `/${'a'.repeat(100_000)}!`;
    for (const pattern of ['^/(a+)+$', '^/(a|aa)+$', '^/(a|a?)+$', '^/(?:a*)*$', '^(/a*)*b']) {
      assert.equal(compileLinear(pattern, 'p').test(subject), false, pattern);
    }
    assert.equal(compileLinear('^/(a+)+!$', 'p').test(subject), true);
  });
});
