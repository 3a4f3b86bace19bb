import { BadRequestError } from '../errors.js';

/**
 * Bounds on a caller's JSON Schema, checked before it is hashed or compiled: Ajv compiles on the main
 * thread, recursively, in time that grows with the number of keywords and subschemas (about 0.05 to
 * 0.1 ms each on a 2-core machine). At these limits the costliest shapes measured compile in 15 to 50 ms
 * (docs/operations.md, Security); a schema nested past them would overflow the stack of the compiler or of
 * JSON.stringify. An extraction schema of 50 fields nested three deep needs a quarter of them.
 */
export const SCHEMA_LIMITS = {
  /** The schema's size as compact JSON. */
  bytes: 100 * 1024,
  /** Objects and arrays nested in one another. */
  depth: 32,
  /** Keys of `properties`, `patternProperties`, `$defs`, `definitions`, `dependentSchemas`... together. */
  properties: 200,
  /** Keys of every object plus the objects and arrays held in arrays: keywords and subschemas. */
  members: 500,
};

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

const refuse = (field: string, limit: string): never => {
  throw new BadRequestError(`${field} too large: ${limit}`);
};
const thousands = (value: number): string => value.toLocaleString('en-US');

/**
 * Refuses (400 naming the limit) a schema past SCHEMA_LIMITS. Walks with an explicit stack, so a schema
 * nested 100,000 deep is measured, not recursed into; stops at the first limit passed.
 */
export function checkSchemaBounds(schema: unknown, field = 'schema'): void {
  const stack: { value: unknown; depth: number }[] = [{ value: schema, depth: 0 }];
  let bytes = 0;
  let properties = 0;
  let members = 0;
  const count = (by: number): void => {
    members += by;
    if (members > SCHEMA_LIMITS.members)
      refuse(field, `more than ${thousands(SCHEMA_LIMITS.members)} keywords and subschemas`);
  };
  const add = (by: number): void => {
    bytes += by;
    if (bytes > SCHEMA_LIMITS.bytes) refuse(field, `more than ${SCHEMA_LIMITS.bytes / 1024} KB as JSON`);
  };
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') {
      add(JSON.stringify(value ?? null)?.length ?? 4);
      continue;
    }
    if (depth >= SCHEMA_LIMITS.depth)
      refuse(field, `more than ${SCHEMA_LIMITS.depth} levels of nesting (objects and arrays)`);
    if (Array.isArray(value)) {
      add(1 + Math.max(1, value.length));
      for (const item of value) {
        if (item !== null && typeof item === 'object') count(1);
        stack.push({ value: item, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(value);
    add(1 + Math.max(1, keys.length));
    count(keys.length);
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key];
      add(JSON.stringify(key).length + 1);
      if (SCHEMA_MAPS.has(key) && item !== null && typeof item === 'object' && !Array.isArray(item)) {
        properties += Object.keys(item).length;
        if (properties > SCHEMA_LIMITS.properties)
          refuse(field, `more than ${thousands(SCHEMA_LIMITS.properties)} properties`);
      }
      stack.push({ value: item, depth: depth + 1 });
    }
  }
}
