import { parseHtml } from '../content/parse/parse.js';
import { allElements, bodyOf, textOf } from '../content/parse/dom.js';
import { SchemaGraph, isJsonLdScript, jsonLdBlocks } from '../content/structured/json-ld.js';
import { microdataItems } from '../content/structured/microdata.js';
import { readMenu } from '../content/structured/menu.js';
import { readProduct } from '../content/structured/product.js';
import type { MenuData, ProductData } from '../content/structured/profiles.js';
import { selectAttributes } from '../extract/attributes.js';
import type { AttributeQuery, AttributeValues } from '../extract/attributes.js';

/** What is read from a page's HTML beside its document: attribute values and declared product and menu. */
export interface PageDataRequest {
  html: string;
  url: string;
  attributes?: AttributeQuery[];
  product?: boolean;
  menu?: boolean;
  /**
   * Also answer the page's visible text (what an LLM's values are checked against), at most this many characters:
   * the checks run on the main thread, and the LLM read no more than its input's bound anyway.
   */
  textChars?: number;
}

export interface PageData {
  attributes?: AttributeValues[];
  /** What the attribute bounds left out, one line per selector. */
  capped?: string[];
  /** The product its structured data declares, null when it declares none (only when asked). */
  product?: ProductData | null;
  menu?: MenuData | null;
  text?: string;
}

/**
 * Reads one page's HTML for what it asks (one parse): CSS selectors' attribute values, and the product and menu
 * its schema.org data declares, JSON-LD first, then microdata.
 */
export function readPageData(request: PageDataRequest): PageData {
  const doc = parseHtml(request.html);
  const out: PageData = {};
  if (request.attributes) {
    const { attributes, capped } = selectAttributes(doc, request.attributes);
    out.attributes = attributes;
    if (capped.length > 0) out.capped = capped;
  }
  if (request.product || request.menu) {
    const url = new URL(request.url);
    const jsonLd = new SchemaGraph(jsonLdBlocks(allElements(doc).filter(isJsonLdScript)));
    let microdata: SchemaGraph | null = null;
    const fromEither = <T>(read: (graph: SchemaGraph, url: URL) => T | null): T | null =>
      read(jsonLd, url) ?? read((microdata ??= new SchemaGraph(microdataItems(doc))), url);
    if (request.product) out.product = fromEither(readProduct);
    if (request.menu) out.menu = fromEither(readMenu);
  }
  if (request.textChars) out.text = textOf(bodyOf(doc)).slice(0, request.textChars);
  return out;
}
