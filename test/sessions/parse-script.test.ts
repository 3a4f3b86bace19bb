import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseScript, ScriptSyntaxError } from '../../src/sessions/commands/parse-script.js';
import { parseRef } from '../../src/sessions/commands/targets.js';
import { navigationUrl } from '../../src/sessions/commands/actions.js';
import { CommandError } from '../../src/sessions/commands/command-error.js';

const words = (script: string): string[][] => parseScript(script).map((c) => c.argv);

describe('command script parsing', () => {
  test('one command a line; blank lines and comments are skipped', () => {
    assert.deepEqual(words('open https://a.test\n\n  # a comment\nsnapshot -i # trailing\n'), [
      ['open', 'https://a.test'],
      ['snapshot', '-i'],
    ]);
  });

  test('&&, || and ; join commands, with or without blanks around them', () => {
    const cmds = parseScript('open a.test&&click @e1 || get url; reload');
    assert.deepEqual(
      cmds.map((c) => [c.argv[0], c.joiner]),
      [
        ['open', 'first'],
        ['click', 'and'],
        ['get', 'or'],
        ['reload', 'first'],
      ],
    );
  });

  test('a chain left open by && continues on the next line', () => {
    const cmds = parseScript('open a.test &&\n  snapshot');
    assert.deepEqual(
      cmds.map((c) => [c.argv[0], c.joiner, c.line]),
      [
        ['open', 'first', 1],
        ['snapshot', 'and', 2],
      ],
    );
  });

  test('quotes and escapes', () => {
    assert.deepEqual(words(`fill @e1 "Ada \\"the first\\" Lovelace"`), [
      ['fill', '@e1', 'Ada "the first" Lovelace'],
    ]);
    assert.deepEqual(words(`fill @e1 'it''s' "a\\\\b" 'no \\escape' x\\ y ""`), [
      ['fill', '@e1', 'its', 'a\\b', 'no \\escape', 'x y', ''],
    ]);
    assert.deepEqual(words(`wait --text "a && b; c | d # e"`), [['wait', '--text', 'a && b; c | d # e']]);
    assert.deepEqual(words('fill @e1 "$HOME costs $5"'), [['fill', '@e1', '$HOME costs $5']], 'no expansion');
    assert.deepEqual(words('open \\\n  a.test'), [['open', 'a.test']], 'a backslash-newline joins lines');
    assert.deepEqual(words('fill @e1 "two\nlines"'), [['fill', '@e1', 'two\nlines']]);
  });

  test('shell-only syntax and broken quoting are refused with the line', () => {
    for (const [script, message] of [
      ['get text h1 | grep x', /line 1: pipes/],
      ['snapshot > out.txt', /redirections/],
      ['open $(curl evil)', /command substitution/],
      ['open `id`', /command substitution/],
      ['reload &', /background jobs/],
      ['open a\nfill @e1 "Ada', /line 2: unterminated double quote/],
      ["fill @e1 'Ada", /unterminated single quote/],
      ['&& open a', /nothing before &&/],
      ['open a && && reload', /nothing before &&/],
      ['open a &&', /ends after && or \|\|/],
    ] as const) {
      assert.throws(
        () => parseScript(script),
        (err: Error) => err instanceof ScriptSyntaxError && message.test(err.message),
        script,
      );
    }
  });
});

describe('refs and URLs', () => {
  test('refs are written @e3, ref=e3 or e3; anything else is a selector', () => {
    assert.equal(parseRef('@e3'), 'e3');
    assert.equal(parseRef('ref=e12'), 'e12');
    assert.equal(parseRef('e7'), 'e7');
    assert.equal(parseRef('@f1e2'), null, "Playwright's own frame refs are not shown");
    assert.equal(parseRef('#e3'), null);
    assert.equal(parseRef('button'), null);
    assert.equal(parseRef('@email'), null);
  });

  test('open takes http(s) (https:// added when missing) and about:blank, nothing else', () => {
    assert.equal(navigationUrl('example.com/a'), 'https://example.com/a');
    assert.equal(navigationUrl('http://127.0.0.1:8080/x'), 'http://127.0.0.1:8080/x');
    assert.equal(navigationUrl('about:blank'), 'about:blank');
    for (const url of [
      'file:///etc/passwd',
      'data:text/html,hi',
      'chrome://settings',
      'javascript:alert(1)',
    ]) {
      assert.throws(
        () => navigationUrl(url),
        (err: Error) => err instanceof CommandError && /not supported/.test(err.message),
        url,
      );
    }
    assert.throws(() => navigationUrl('http://user:pw@a.test/'), /credentials/);
  });
});
