import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BadRequestError } from '../../src/errors.js';
import { compileSchema } from '../../src/extract/schema.js';
import { SCHEMA_LIMITS, checkSchemaBounds } from '../../src/extract/schema-bounds.js';
import { MAX_PATTERN_WORK } from '../../src/extract/schema-patterns.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof BadRequestError, `a BadRequestError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected a refusal');
};

const properties = (n: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }]));

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('caller JSON schemas', () => {
  test('pattern and patternProperties run with RE2 semantics, in every dialect', () => {
    for (const $schema of [
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const validate = compileSchema({
        $schema,
        type: 'object',
        properties: { path: { type: 'string', pattern: '^/(a+)+$' } },
        patternProperties: { '^x-(a|aa)+$': { type: 'number' } },
      });
      // 2^40 steps for a backtracking engine; one pass here.
      assert.equal(validate({ path: `/${'a'.repeat(40)}!` }), false);
      assert.match(JSON.stringify(validate.errors), /must match pattern/);
      assert.equal(validate({ path: '/aaa', [`x-${'a'.repeat(40)}`]: 1 }), true);
      assert.equal(validate({ [`x-${'a'.repeat(40)}`]: 'not a number' }), false);
    }
  });

  test('lookarounds and backreferences in a schema are a 400 naming the pattern', () => {
    assert.match(
      refusal(() => compileSchema({ type: 'string', pattern: '^(?!admin)' })),
      /^schema: pattern '\^\(\?!admin\)': lookahead \(\?! is not supported/,
    );
    assert.match(
      refusal(() => compileSchema({ patternProperties: { '(a)\\1': {} } })),
      /^schema: pattern '\(a\)\\1': backreference/,
    );
  });

  test('a string too long for its pattern does not match it', () => {
    const validate = compileSchema({ type: 'string', pattern: '^a+$' });
    assert.equal(validate('a'.repeat(1000)), true);
    assert.equal(validate('a'.repeat(MAX_PATTERN_WORK)), false);
  });

  test('format "regex" still checks JavaScript syntax of the data (compiled, never run)', () => {
    const validate = compileSchema({ type: 'string', format: 'regex' });
    assert.equal(validate('^(a+)+$'), true);
    assert.equal(validate('(unclosed'), false);
  });

  test('schemas past the limits are a 400 naming the limit, never a 500', () => {
    assert.equal(
      refusal(() => compileSchema({ type: 'object', properties: properties(20_000) })),
      `schema too large: more than ${SCHEMA_LIMITS.properties} properties`,
    );
    assert.equal(
      refusal(() => compileSchema(nested(3000))),
      `schema too large: more than ${SCHEMA_LIMITS.depth} levels of nesting (objects and arrays)`,
    );
    let arrays: unknown = 'x';
    for (let i = 0; i < 200_000; i++) arrays = [arrays];
    assert.match(
      refusal(() => compileSchema({ enum: [arrays] })),
      /levels of nesting/,
    );
    assert.match(
      refusal(() => compileSchema({ anyOf: Array.from({ length: 1000 }, () => ({})) })),
      /^schema too large: more than 500 keywords and subschemas$/,
    );
    assert.match(
      refusal(() => compileSchema({ description: 'x'.repeat(200 * 1024) })),
      /^schema too large: more than 100 KB as JSON$/,
    );
    assert.match(
      refusal(() => checkSchemaBounds(nested(100), 'formats[0].schema')),
      /^formats\[0\]\.schema too large/,
    );
  });

  test('a schema at the limits compiles', () => {
    const validate = compileSchema({
      type: 'object',
      properties: properties(SCHEMA_LIMITS.properties),
      required: ['p0'],
    });
    assert.equal(validate({ p0: 'x' }), true);
    assert.equal(compileSchema(nested(SCHEMA_LIMITS.depth / 2 - 1))({ a: { a: {} } }), true);
  });
});
