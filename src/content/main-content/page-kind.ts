import type { Document, Element } from '../parse/dom.js';
import { allElements, textOf } from '../parse/dom.js';
import { isJsonLdScript, jsonLdBlocks } from '../structured/json-ld.js';
import { largestPricedItemRun } from './priced-items.js';

/** What kind of page this is: it decides what "main content" means (see main-content.ts). */
export const PAGE_KINDS = ['article', 'product', 'forum', 'listing', 'documentation', 'other'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

const PRODUCT_TYPES =
  /^(product|productgroup|offer|aggregateoffer|individualproduct|vehicle|car|book|softwareapplication)$/i;

/**
 * schema.org types, by the kind of page they declare, in the order they decide: an article that also declares
 * an ItemList (its table of contents, its ranked picks) is an article.
 */
const SCHEMA_KINDS: [RegExp, PageKind][] = [
  [PRODUCT_TYPES, 'product'],
  [/^(discussionforumposting|qapage|question|answer)$/i, 'forum'],
  [/^(techarticle|apireference)$/i, 'documentation'],
  [
    /^(newsarticle|blogposting|article|reportagenewsarticle|analysisnewsarticle|opinionnewsarticle|scholarlyarticle|posting|socialmediaposting|recipe|review|howto|liveblogposting)$/i,
    'article',
  ],
  [/^(itemlist|searchresultspage|collectionpage|offercatalog|productcollection)$/i, 'listing'],
];

/** A page declaring this many products is a list of them (a shop's category), not one product's page. */
const MANY_PRODUCTS = 5;

/** Repeated items with a link and a price each (priced-items.ts): a grid this large makes a listing. */
const PRICED_GRID = 6;

/** Every @type declared in the page's JSON-LD (nested objects and @graph included), lowercased. */
function schemaTypes(scripts: Element[]): string[] {
  const types: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.slice(0, 50).forEach((v) => visit(v, depth + 1));
    const record = value as Record<string, unknown>;
    const type = record['@type'];
    for (const t of Array.isArray(type) ? type : [type])
      if (typeof t === 'string') types.push(t.toLowerCase());
    for (const key of ['@graph', 'mainEntity', 'itemListElement']) visit(record[key], depth + 1);
  };
  for (const block of jsonLdBlocks(scripts)) visit(block, 0);
  return types;
}

/**
 * The page's kind from what it declares and what it is made of: schema.org types in JSON-LD or microdata,
 * then Open Graph's type, then structure (a grid of priced items, price and cart markup, comment or post
 * threads, code blocks). Pure and linear in the page. Answers the kind and the signal that decided it.
 */
export function detectPageKind(
  doc: Document,
  url: URL,
  elements: readonly Element[] = allElements(doc),
): { kind: PageKind; signal: string } {
  const scripts = elements.filter(isJsonLdScript);
  const declared = [
    ...schemaTypes(scripts),
    ...elements
      .filter((el) => 'itemtype' in el.attribs)
      .map((el) => (el.attribs.itemtype ?? '').split('/').pop()!.toLowerCase()),
  ];
  // An FAQ's questions (FAQPage → Question → Answer) are a section of a shop, service or article page, not
  // a thread: a question or an answer is a forum's only outside an FAQPage.
  const faq = declared.includes('faqpage');
  const signals = faq ? declared.filter((t) => t !== 'question' && t !== 'answer') : declared;
  const products = signals.filter((t) => PRODUCT_TYPES.test(t)).length;
  for (const [pattern, kind] of SCHEMA_KINDS) {
    if (kind === 'product' && products >= MANY_PRODUCTS) continue;
    const type = signals.find((t) => pattern.test(t));
    if (type) return { kind, signal: `schema.org ${type}` };
  }
  if (products >= MANY_PRODUCTS)
    return { kind: 'listing', signal: `schema.org product, ${products} of them` };
  const ogType = elements.find((el) => el.name === 'meta' && el.attribs.property === 'og:type')?.attribs
    .content;
  if (ogType && /^product[.:]group$/i.test(ogType)) return { kind: 'listing', signal: `og:type ${ogType}` };
  if (ogType && /^(product|og:product)/i.test(ogType))
    return { kind: 'product', signal: `og:type ${ogType}` };
  if (ogType && /^article/i.test(ogType)) return { kind: 'article', signal: `og:type ${ogType}` };
  const has = (test: (el: Element) => boolean, at = 1): boolean => {
    let n = 0;
    for (const el of elements) if (test(el) && ++n >= at) return true;
    return false;
  };
  const pricedItems = largestPricedItemRun(doc);
  if (pricedItems >= PRICED_GRID) return { kind: 'listing', signal: `${pricedItems} priced items` };
  const names = (el: Element): string => `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
  if (
    has((el) => 'itemprop' in el.attribs && /^(price|offers)$/i.test(el.attribs.itemprop ?? '')) ||
    has((el) => /(^|[\s_-])add-?to-?(cart|basket|bag)([\s_-]|$)/i.test(names(el)))
  )
    return { kind: 'product', signal: 'price and cart markup' };
  // Posts of a thread: four or more blocks whose class is a post or reply itself (not post-title,
  // post-meta...), each with a message's worth of text.
  const post = /(^|\s)(post|message|reply|forum-post|topic-post|postbody|post-body|answer)(\s|$)/i;
  if (has((el) => post.test(el.attribs.class ?? '') && textOf(el).length >= 100, 4))
    return { kind: 'forum', signal: 'repeated posts' };
  if (
    /(^|\/)(docs?|documentation|api|reference|manual|guide)(\/|$)/i.test(url.pathname) &&
    has((el) => el.name === 'pre', 1)
  )
    return { kind: 'documentation', signal: 'code under a documentation path' };
  if (has((el) => el.name === 'pre' && textOf(el).length > 80, 3))
    return { kind: 'documentation', signal: 'code blocks' };
  return { kind: 'other', signal: 'no signal' };
}
