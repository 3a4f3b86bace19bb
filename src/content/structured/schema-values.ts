import { decodeHTML } from 'entities';
import { absoluteUrl } from '../parse/urls.js';
import type { SchemaGraph, SchemaNode } from './json-ld.js';
import type { Availability, Image, Price } from './profiles.js';

/** The object without its undefined fields (optional fields are left out, not null). */
export const compact = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** A name as an id: lowercase ASCII words joined by hyphens ("Small Plates" → "small-plates"), at most 60 characters. */
export const slugOf = (text: string): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

/** Characters kept of one text value, and images kept per object. */
const MAX_TEXT = 5000;
const MAX_IMAGES = 20;

/** A property's text: the first string or number (an object's name or @value), entities decoded, white space collapsed. */
export function textValue(graph: SchemaGraph, node: SchemaNode, key: string): string | undefined {
  for (const value of graph.all(node, key)) {
    const raw =
      typeof value === 'string' || typeof value === 'number'
        ? String(value)
        : value && typeof value === 'object'
          ? ((value as SchemaNode).name ?? (value as SchemaNode)['@value'])
          : undefined;
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    const text = decodeHTML(String(raw))
      // A tag holds no '<': a value of many '<' and no '>' is not rescanned from each of them.
      .replace(/<[^<>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, MAX_TEXT);
    if (text) return text;
  }
  return undefined;
}

/** The first of these properties that has text. */
export function firstText(graph: SchemaGraph, node: SchemaNode, keys: string[]): string | undefined {
  for (const key of keys) {
    const text = textValue(graph, node, key);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** A property holding a URL (a string, or an object's url), resolved against the page. */
export function urlValue(graph: SchemaGraph, node: SchemaNode, key: string, base: URL): string | undefined {
  for (const value of graph.all(node, key)) {
    const href = typeof value === 'string' ? value : (value as SchemaNode | null)?.url;
    const url = typeof href === 'string' ? absoluteUrl(href, base) : null;
    if (url && /^https?:/.test(url)) return url;
  }
  return undefined;
}

/** Images: URLs or ImageObjects (url or contentUrl, caption or name as the alt text), resolved, at most 20. */
export function imagesOf(graph: SchemaGraph, node: SchemaNode, base: URL): Image[] {
  const images: Image[] = [];
  for (const value of graph.all(node, 'image')) {
    if (images.length >= MAX_IMAGES) break;
    const object = value && typeof value === 'object' ? (value as SchemaNode) : null;
    const href = typeof value === 'string' ? value : (object?.url ?? object?.contentUrl);
    const url = typeof href === 'string' ? absoluteUrl(href, base) : null;
    if (!url || images.some((i) => i.url === url)) continue;
    const alt = object ? firstText(graph, object, ['caption', 'name']) : undefined;
    images.push(alt ? { url, alt } : { url });
  }
  return images;
}

/**
 * A price as schema.org writes it: a number, or a string such as "19.99" (schema.org asks for a dot; "1,299.00",
 * "19,99" and a currency sign around it are read too). Null when no amount can be read.
 */
export function amountOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const digits = /\d[\d.,\s]*/.exec(value)?.[0].replace(/\s/g, '').replace(/[.,]$/, '');
  if (!digits) return null;
  const lastSeparator = Math.max(digits.lastIndexOf('.'), digits.lastIndexOf(','));
  const decimals = lastSeparator >= 0 ? digits.length - lastSeparator - 1 : 0;
  // A last separator followed by one or two digits is the decimal point; every other separator groups thousands.
  const normalized =
    lastSeparator >= 0 && decimals <= 2
      ? `${digits.slice(0, lastSeparator).replace(/[.,]/g, '')}.${digits.slice(lastSeparator + 1)}`
      : digits.replace(/[.,]/g, '');
  const amount = Number(normalized);
  return Number.isFinite(amount) ? amount : null;
}

/** The amount written for people in this currency ("$19.99"), or undefined when the currency is not a code. */
export function formattedPrice(amount: number, currency: string | undefined): string | undefined {
  if (!currency || !/^[A-Z]{3}$/.test(currency)) return undefined;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
  } catch {
    return undefined;
  }
}

const isListPrice = (graph: SchemaGraph, spec: SchemaNode): boolean =>
  /(ListPrice|StrikethroughPrice|MSRP)$/i.test(textValue(graph, spec, 'priceType') ?? '');

/** An amount with its currency (an AggregateOffer's lowest price when it gives a range). */
function amountWithCurrency(graph: SchemaGraph, holder: SchemaNode, offer: SchemaNode): Price | undefined {
  const amount = amountOf(graph.all(holder, holder.price !== undefined ? 'price' : 'lowPrice')[0]);
  if (amount === null) return undefined;
  const currency = (
    textValue(graph, holder, 'priceCurrency') ?? textValue(graph, offer, 'priceCurrency')
  )?.toUpperCase();
  const formatted = formattedPrice(amount, currency);
  return { amount, ...(currency ? { currency } : {}), ...(formatted ? { formatted } : {}) };
}

/** The price of an offer: its own, or its price specification's (not a list price it is reduced from). */
export function priceOf(graph: SchemaGraph, offer: SchemaNode): Price | undefined {
  const specs = graph.nodesOf(offer, 'priceSpecification').filter((s) => !isListPrice(graph, s));
  const holder = [offer, ...specs].find((n) => n.price !== undefined || n.lowPrice !== undefined);
  return holder ? amountWithCurrency(graph, holder, offer) : undefined;
}

/** The list price an offer is reduced from (a ListPrice or StrikethroughPrice specification), if it says. */
export function originalPriceOf(graph: SchemaGraph, offer: SchemaNode): Price | undefined {
  const spec = graph.nodesOf(offer, 'priceSpecification').find((s) => isListPrice(graph, s));
  return spec && spec.price !== undefined ? amountWithCurrency(graph, spec, offer) : undefined;
}

const IN_STOCK = /^(instock|limitedavailability|onlineonly|instoreonly)$/i;

/** schema.org's availability ("https://schema.org/InStock") as in stock or not, with its value as the text. */
export function availabilityOf(graph: SchemaGraph, offer: SchemaNode | undefined): Availability {
  const value = offer ? textValue(graph, offer, 'availability') : undefined;
  if (!value) return { inStock: false };
  const text = value.split(/[/#:]/).pop()!.trim();
  return { inStock: IN_STOCK.test(text), text };
}
