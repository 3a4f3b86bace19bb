import type { Element } from '../parse/dom.js';
import { rawTextOf } from '../parse/dom.js';

/** A schema.org object as JSON-LD or microdata declares it: `@type`, `@id` and its properties. */
export type SchemaNode = Record<string, unknown>;

/** A JSON-LD block larger than this is skipped unread. */
const MAX_BLOCK_CHARS = 1_000_000;
/** Typed objects collected from a page at most, and how deep they are looked for. */
const MAX_NODES = 2000;
const MAX_DEPTH = 12;

export const isJsonLdScript = (el: Element): boolean =>
  el.name === 'script' && /ld\+json/i.test(el.attribs.type ?? '');

/** The parsed JSON-LD blocks of these scripts; broken JSON-LD is common and is skipped, as are huge blocks. */
export function jsonLdBlocks(scripts: Element[]): unknown[] {
  const blocks: unknown[] = [];
  for (const script of scripts) {
    const text = rawTextOf(script);
    if (text.length > MAX_BLOCK_CHARS) continue;
    try {
      blocks.push(JSON.parse(text.trim().replace(/^<!--|-->$/g, '')));
    } catch {
      // says nothing
    }
  }
  return blocks;
}

/** The schema.org types of a node, lowercased and without their vocabulary ("http://schema.org/Product" → "product"). */
export function typesOf(node: SchemaNode): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.split(/[/#:]/).pop()!.toLowerCase());
}

export const hasType = (node: SchemaNode, pattern: RegExp): boolean =>
  typesOf(node).some((t) => pattern.test(t));

const isRecord = (value: unknown): value is SchemaNode =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The typed objects of a page's structured data, outer before inner (a product before its offers), with `@id`
 * references resolvable: JSON-LD's `@graph` often names an object once and points at it elsewhere.
 */
export class SchemaGraph {
  readonly nodes: SchemaNode[] = [];
  private readonly byId = new Map<string, SchemaNode>();

  constructor(roots: unknown[]) {
    const visit = (value: unknown, depth: number): void => {
      if (depth > MAX_DEPTH || this.nodes.length >= MAX_NODES) return;
      if (Array.isArray(value)) {
        for (const item of value.slice(0, 200)) visit(item, depth + 1);
        return;
      }
      if (!isRecord(value)) return;
      if (value['@type'] !== undefined) this.nodes.push(value);
      const id = value['@id'];
      if (typeof id === 'string' && Object.keys(value).length > 1 && !this.byId.has(id))
        this.byId.set(id, value);
      for (const [key, child] of Object.entries(value)) if (key !== '@context') visit(child, depth + 1);
    };
    for (const root of roots) visit(root, 0);
  }

  /** A value with a bare `{"@id": ...}` reference replaced by the object it names (when the page has it). */
  deref(value: unknown): unknown {
    if (isRecord(value) && typeof value['@id'] === 'string' && Object.keys(value).length === 1)
      return this.byId.get(value['@id']) ?? value;
    return value;
  }

  /** The values of a property as a list (a single value is a list of one), references resolved. */
  all(node: SchemaNode, key: string): unknown[] {
    const value = node[key];
    if (value === undefined || value === null) return [];
    return (Array.isArray(value) ? value : [value]).map((v) => this.deref(v));
  }

  /** The typed objects among a property's values. */
  nodesOf(node: SchemaNode, key: string): SchemaNode[] {
    return this.all(node, key).filter(isRecord);
  }

  /** The first node of these types, or undefined. */
  find(pattern: RegExp): SchemaNode | undefined {
    return this.nodes.find((n) => hasType(n, pattern));
  }
}
