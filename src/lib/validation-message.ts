import type { FieldIssue } from '../errors.js';

/** An Ajv validation error, as Fastify and our own validate() report it. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** '/formats/0' -> 'formats[0]'; '' -> the context ('body'). */
function fieldName(instancePath: string, context: string): string {
  if (instancePath === '') return context;
  return instancePath
    .slice(1)
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

/** One readable sentence naming the field, from the first Ajv error. */
export function describeValidation(issue: ValidationIssue, context: string): string {
  const field = fieldName(issue.instancePath, context);
  const p = issue.params;
  switch (issue.keyword) {
    case 'required':
      return `${field === context ? '' : `${field}: `}missing required field '${String(p.missingProperty)}'`;
    case 'additionalProperties':
      return `unknown field '${String(p.additionalProperty)}'${field === context ? '' : ` in ${field}`}`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `${field} must be ${String(p.type)}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${field} ${issue.message ?? 'is invalid'}`;
  }
}

/** zod's name of each kind of check (what Firecrawl's `details` carry), by Ajv keyword. */
const ZOD_CODES: Record<string, string> = {
  type: 'invalid_type',
  required: 'invalid_type',
  enum: 'invalid_value',
  const: 'invalid_value',
  anyOf: 'invalid_union',
  oneOf: 'invalid_union',
  additionalProperties: 'unrecognized_keys',
  maximum: 'too_big',
  exclusiveMaximum: 'too_big',
  maxLength: 'too_big',
  maxItems: 'too_big',
  maxProperties: 'too_big',
  minimum: 'too_small',
  exclusiveMinimum: 'too_small',
  minLength: 'too_small',
  minItems: 'too_small',
  minProperties: 'too_small',
  pattern: 'invalid_format',
  format: 'invalid_format',
};

/** '/parsers/0' -> ['parsers', 0] (a missing property's name is appended, where zod puts it). */
function pathOf(issue: ValidationIssue): (string | number)[] {
  const path: (string | number)[] = issue.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~')));
  if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
  return path;
}

/**
 * The first Ajv error as one field issue, with the readable sentence as its message. A value that matches no
 * member of a union is reported at the union (Ajv lists each member's error before the union's own).
 */
export function validationIssue(issues: ValidationIssue[], context: string): FieldIssue {
  const first = issues[0]!;
  const union = issues.find((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const at = union ?? first;
  return {
    code: ZOD_CODES[at.keyword] ?? at.keyword,
    path: pathOf(at),
    message: describeValidation(first, context),
  };
}
