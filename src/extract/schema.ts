import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import AjvDraft07 from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019.js';
import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { BadRequestError } from '../errors.js';
import { checkSchemaBounds } from './schema-bounds.js';
import { linearRegExp, resetPatternBudget } from './schema-patterns.js';

export type JsonSchema = Record<string, unknown> | boolean;

const draft06Meta = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as object;

/** Ajv reports an unknown `format` through its logger; we turn that into a compile error. */
const logger = {
  log: (): void => undefined,
  warn: (message: string): void => {
    if (/unknown format/i.test(message)) throw new Error(message);
  },
  error: (): void => undefined,
};

/**
 * `code.regExp`: caller patterns run on the linear-time engine. Without strict mode (and with
 * allowMatchingProperties) Ajv never tests a pattern with JavaScript's RegExp while compiling either.
 */
const options: Options = {
  strict: false,
  // A $ref compiles once, as its own function: inlined, 900 references to one 50-property definition
  // compile 45,000 properties (seconds).
  inlineRefs: false,
  allowMatchingProperties: true,
  allErrors: true,
  logger,
  validateFormats: true,
  code: { regExp: linearRegExp },
};

type AjvInstance = InstanceType<typeof Ajv2020.default>;

function withFormats<T extends AjvInstance>(ajv: T): T {
  addFormats.default(ajv);
  return ajv;
}

/** One Ajv per dialect, created on first use; no loadSchema, so no $ref is ever fetched. */
const dialects: Record<string, () => AjvInstance> = {
  'draft-04': () => withFormats(new AjvDraft04.default(options) as unknown as AjvInstance),
  'draft-06': () => {
    const ajv = withFormats(new AjvDraft07.default(options) as unknown as AjvInstance);
    ajv.addMetaSchema(draft06Meta);
    return ajv;
  },
  'draft-07': () => withFormats(new AjvDraft07.default(options) as unknown as AjvInstance),
  '2019-09': () => withFormats(new Ajv2019.default(options) as unknown as AjvInstance),
  '2020-12': () => withFormats(new Ajv2020.default(options)),
};
const instances = new Map<string, AjvInstance>();

const DIALECT_URIS: [RegExp, string][] = [
  [/^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, 'draft-04'],
  [/^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, 'draft-06'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, 'draft-07'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, '2019-09'],
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, '2020-12'],
];

/** The draft a schema declares with `$schema` (2020-12 when it declares none). */
export function dialectOf(schema: JsonSchema): string {
  if (typeof schema === 'boolean' || schema.$schema === undefined) return '2020-12';
  const uri = String(schema.$schema);
  const match = DIALECT_URIS.find(([pattern]) => pattern.test(uri));
  if (!match) {
    throw new BadRequestError(
      `schema: unsupported $schema dialect '${uri.slice(0, 200)}' (supported: drafts 4, 6, 7, 2019-09, 2020-12)`,
    );
  }
  return match[1];
}

/** Compiled validators by schema hash, with the Ajv that holds each (to drop it there too). */
const cache = new Map<string, { validate: ValidateFunction; ajv: AjvInstance; schema: JsonSchema }>();
const CACHE_SIZE = 256;

function remember(key: string, validate: ValidateFunction, ajv: AjvInstance, schema: JsonSchema): void {
  if (cache.size >= CACHE_SIZE) {
    const oldest = cache.keys().next().value!;
    const evicted = cache.get(oldest)!;
    cache.delete(oldest);
    // Ajv keeps every schema it compiled; one without an id can go (one with an id is replaced by id).
    const s = evicted.schema;
    if (typeof s === 'object' && s.$id === undefined && s.id === undefined) evicted.ajv.removeSchema(s);
  }
  cache.set(key, { validate, ajv, schema });
}

/**
 * Compiles a caller's JSON Schema with the Ajv of its dialect. References resolve only inside the
 * document. A schema past SCHEMA_LIMITS, an invalid schema, a pattern the linear-time engine cannot run,
 * an unresolved (or remote) $ref or an unknown format is a 400. Compiled validators are cached by a hash
 * of the schema.
 */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  checkSchemaBounds(schema);
  const dialect = dialectOf(schema);
  const key = createHash('sha256').update(dialect).update(JSON.stringify(schema)).digest('hex');
  const cached = cache.get(key);
  if (cached) return cached.validate;
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = dialects[dialect]!();
    instances.set(dialect, ajv);
  }
  let validate: ValidateFunction;
  try {
    // Two requests may send different schemas with the same $id: the newer one replaces the older.
    const id = typeof schema === 'object' ? (schema.$id ?? schema.id) : undefined;
    if (typeof id === 'string') ajv.removeSchema(id);
    resetPatternBudget();
    validate = ajv.compile(schema);
  } catch (err) {
    if (err instanceof BadRequestError) throw new BadRequestError(`schema: ${err.message}`);
    const message = err instanceof Error ? err.message : String(err);
    const reason = /can't resolve reference/i.test(message)
      ? `unresolved $ref (${message.replace(/^can't resolve reference /, '')}); references resolve only inside the schema`
      : message;
    throw new BadRequestError(`schema: ${reason}`);
  }
  remember(key, validate, ajv, schema);
  return validate;
}

/** Violations as JSON-pointer sentences: "/price: must be number", "/name: is required". */
export function describeViolations(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: string }).missingProperty ?? '');
      return `${e.instancePath}/${missing}: is required`;
    }
    return `${e.instancePath || '/'}: ${e.message ?? 'is invalid'}`;
  });
}
