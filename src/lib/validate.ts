import Ajv from 'ajv';
import type { TSchema } from 'typebox';
import { BadRequestError } from '../errors.js';
import { describeValidation, validationIssue } from './validation-message.js';
import type { ValidationIssue } from './validation-message.js';

// The HTTP routes' options (app/server.ts): unknown fields and wrong types are errors, defaults fill in.
const ajv = new Ajv.default({
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: true,
  allErrors: false,
});
const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

/**
 * Checks `value` against a route's TypeBox schema as the HTTP routes do, for the CLI and the MCP tools: the
 * same 400 message naming the field. Answers the value, with the schema's defaults filled in.
 */
export function validate<T>(schema: TSchema, value: unknown): T {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  if (!check(value)) {
    const issues = check.errors! as ValidationIssue[];
    const details = [validationIssue(issues, 'body')];
    throw new BadRequestError(describeValidation(issues[0]!, 'body'), { details });
  }
  return value as T;
}
