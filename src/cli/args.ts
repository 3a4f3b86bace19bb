import type { TSchema } from 'typebox';
import { BadRequestError } from '../errors.js';

/** `only-main-content` → `onlyMainContent`. */
const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

type PropertySchema = { type?: string | string[]; anyOf?: PropertySchema[] };

function typeOf(schema: PropertySchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (typeof schema.type === 'string') return schema.type;
  return schema.anyOf?.map(typeOf).find((t) => t !== undefined && t !== 'null');
}

/**
 * Turns `--flag value` pairs into a request body by the operation's schema: booleans take no value (or
 * `=true`/`=false`), integers and numbers are read as numbers, arrays are comma-separated, objects are JSON.
 * Whatever cannot be read is passed on as text, so the schema's own message names the field.
 */
export function bodyFromFlags(schema: TSchema, flags: [string, string | true][]): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
  const body: Record<string, unknown> = {};
  for (const [flag, raw] of flags) {
    const field = camel(flag);
    const type = typeOf(properties[field]);
    if (type === 'boolean') {
      body[field] = raw === true || raw === 'true' ? true : raw === 'false' ? false : raw;
    } else if (raw === true) {
      throw new BadRequestError(`--${flag} needs a value`);
    } else if (type === 'integer' || type === 'number') {
      body[field] = raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    } else if (type === 'array') {
      body[field] = raw.startsWith('[')
        ? parseJson(raw, flag)
        : raw
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean);
    } else if (type === 'object') {
      body[field] = parseJson(raw, flag);
    } else {
      body[field] = raw;
    }
  }
  return body;
}

function parseJson(raw: string, flag: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new BadRequestError(`--${flag} must be JSON`);
  }
}

/** Whether `--flag` of this schema is a boolean (it then takes no separate value). */
export function isBooleanFlag(schema: TSchema | null, flag: string): boolean {
  const properties = (schema as { properties?: Record<string, PropertySchema> } | null)?.properties ?? {};
  return typeOf(properties[camel(flag)]) === 'boolean';
}

/**
 * Splits argv into positionals and `--flag=value` / `--flag value` pairs; a boolean flag (by `isBoolean`) or one
 * followed by another flag is true.
 */
export function splitArgs(
  argv: string[],
  isBoolean: (flag: string) => boolean,
): { positionals: string[]; flags: [string, string | true][] } {
  const positionals: string[] = [];
  const flags: [string, string | true][] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      flags.push([arg.slice(2, eq), arg.slice(eq + 1)]);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--') && !isBoolean(arg.slice(2))) {
      flags.push([arg.slice(2), next]);
      i++;
    } else {
      flags.push([arg.slice(2), true]);
    }
  }
  return { positionals, flags };
}
