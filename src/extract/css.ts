import { selectAll } from 'css-select';
import { BadRequestError } from '../errors.js';
import type { AnyNode, Element } from '../content/parse/dom.js';
import { textOf } from '../content/parse/dom.js';

type FieldSchema = { type?: unknown; items?: unknown };

/** Follows a local "$ref": "#/..." pointer inside the caller's schema (one level at a time, bounded). */
function resolveLocal(schema: unknown, root: unknown): unknown {
  let current = schema;
  for (let hops = 0; hops < 10; hops++) {
    const ref = (current as { $ref?: unknown } | undefined)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return current;
    let target: unknown = root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      target = target && typeof target === 'object' ? (target as Record<string, unknown>)[key] : undefined;
    }
    current = target;
  }
  return current;
}

/** The declared type of a schema property ('string' when none or when it is a union). */
function typeOf(schema: unknown): string {
  const type = (schema as FieldSchema | undefined)?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'string');
  return 'string';
}

/**
 * Numbers from text: the first run of digits (with its sign and separators) is parsed as a float, so
 * "$1,299.00" is 1299, "4.5 out of 5" is 4.5 and "(1,203 reviews)" is 1203. A comma followed by one or
 * two final digits and no dot is a decimal comma ("149,95 €" is 149.95); other commas group thousands.
 */
export function toNumber(text: string): number | null {
  const run = /-?\d[\d.,\u00a0 ]*/.exec(text.replace(/[\u2212\u2013]/g, '-'));
  if (!run) return null;
  let cleaned = run[0].replace(/[\s\u00a0]/g, '').replace(/[.,]$/, '');
  if (/,\d{1,2}$/.test(cleaned) && !cleaned.includes('.')) cleaned = cleaned.replace(/,(\d{1,2})$/, '.$1');
  cleaned = cleaned.replace(/,/g, '');
  const value = Number.parseFloat(cleaned);
  return Number.isFinite(value) ? value : null;
}

export function toBoolean(text: string): boolean {
  return /^(?:true|yes|1)$/i.test(text.trim());
}

function coerce(text: string, type: string): unknown {
  if (type === 'number' || type === 'integer') return toNumber(text);
  if (type === 'boolean') return toBoolean(text);
  return text;
}

/** "a.product@href" selects a.product and takes its href attribute instead of its text. */
function splitAttribute(selector: string): { css: string; attribute: string | null } {
  const match = /^(.*\S)\s*@([\w:-]+)$/.exec(selector);
  return match ? { css: match[1]!, attribute: match[2]! } : { css: selector, attribute: null };
}

function valueOf(el: Element, attribute: string | null): string {
  return attribute ? (el.attribs[attribute] ?? '').trim() : textOf(el);
}

/**
 * Runs each field's selector on the page and takes the text of the match (trimmed, white space
 * collapsed), or an attribute with the "selector@attr" form. With a schema, values are coerced by the
 * property's type: numbers and integers parsed, booleans from "true"/"yes"/"1", arrays collect every
 * match (coercing items by `items.type`). Fields without a match are left out.
 */
export function extractWithSelectors(
  root: AnyNode,
  selectors: Record<string, string>,
  properties: Record<string, unknown> | undefined,
  schemaRoot?: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, selector] of Object.entries(selectors)) {
    const { css, attribute } = splitAttribute(selector);
    let matches: Element[];
    try {
      matches = selectAll<AnyNode, Element>(css, root);
    } catch {
      throw new BadRequestError(`selectors.${field} is not a valid CSS selector: '${selector}'`);
    }
    const schema = resolveLocal(properties?.[field], schemaRoot);
    const type = typeOf(schema);
    if (type === 'array') {
      const itemType = typeOf(resolveLocal((schema as FieldSchema).items, schemaRoot));
      out[field] = matches
        .map((el) => coerce(valueOf(el, attribute), itemType))
        .filter((v) => v !== '' && v !== null);
      continue;
    }
    const first = matches.find((el) => valueOf(el, attribute) !== '');
    if (!first) continue;
    const value = coerce(valueOf(first, attribute), type);
    if (value !== null) out[field] = value;
  }
  return out;
}

/** Share of the expected fields that hold a value (0..1). */
export function completeness(data: Record<string, unknown>, fields: string[]): number {
  if (fields.length === 0) return 1;
  const filled = fields.filter((f) => {
    const v = data[f];
    return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
  });
  return filled.length / fields.length;
}
