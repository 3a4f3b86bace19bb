import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { BadRequestError } from '../../src/errors.js';
import { checkLanguage } from '../../src/sessions/commands/language.js';

const off = { browserExecuteCode: false };
const on = { browserExecuteCode: true };

test('bash (and no language) always runs the command language', () => {
  assert.equal(checkLanguage(undefined, off), 'bash');
  assert.equal(checkLanguage('bash', off), 'bash');
});

test('node needs BROWSER_EXECUTE_CODE; without it a 400 names the setting', () => {
  assert.equal(checkLanguage('node', on), 'node');
  assert.throws(
    () => checkLanguage('node', off),
    (err: unknown) =>
      err instanceof BadRequestError && err.status === 400 && /BROWSER_EXECUTE_CODE=true/.test(err.message),
  );
});

test('python and anything else are a 400 naming the supported languages', () => {
  for (const [settings, also] of [
    [off, /or "node" with BROWSER_EXECUTE_CODE=true/],
    [on, /or "node" \(Playwright code\)/],
  ] as const) {
    assert.throws(
      () => checkLanguage('python', settings),
      (err: unknown) =>
        err instanceof BadRequestError &&
        /language "python" is not supported: use "bash"/.test(err.message) &&
        also.test(err.message),
    );
  }
});

test('BROWSER_EXECUTE_CODE is off by default and read as a bool', () => {
  assert.equal(loadConfig({}).browserExecuteCode, false);
  assert.equal(loadConfig({ BROWSER_EXECUTE_CODE: 'true' }).browserExecuteCode, true);
  assert.throws(
    () => loadConfig({ BROWSER_EXECUTE_CODE: 'maybe' }),
    /BROWSER_EXECUTE_CODE must be true or false/,
  );
});
