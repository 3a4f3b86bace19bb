import type { AnyNode, Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import { isNeverContent } from '../parse/elements.js';

/** A price as shops print it: a currency sign before the number, or a currency after it. */
const PRICE = /[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|EUR|USD|GBP|CHF|kr|zł)(?![\p{L}])/u;

/** An item of a grid is a card, not a section: a product card's name, price and badges fit in this. */
const MAX_ITEM_TEXT = 600;

/** Text up to this long is carried up whole, so a price split across spans (`$` `19` `.99`) is still read. */
const SHORT_TEXT = 40;

interface Facts {
  text: number;
  link: boolean;
  price: boolean;
  /** The subtree's text when it is at most SHORT_TEXT long, else null. */
  short: string | null;
}

/**
 * The largest run of sibling items that look alike (same tag, same first class) and each carry a link and
 * a price in a card's worth of text: the grid of a shop's category page, a search result list of offers.
 * One pass over the tree, bottom-up (each element's facts come from its children's), so linear in the page.
 */
export function largestPricedItemRun(root: AnyNode): number {
  let largest = 0;
  const factsOf = (node: AnyNode): Facts => {
    if (node.type === 'text') {
      const data = node.data.trim();
      return {
        text: data.length,
        link: false,
        price: PRICE.test(data),
        short: data.length <= SHORT_TEXT ? data : null,
      };
    }
    if (!('children' in node) || (isTag(node) && isNeverContent(node)))
      return { text: 0, link: false, price: false, short: '' };
    const facts: Facts = { text: 0, link: isTag(node) && node.name === 'a', price: false, short: '' };
    const runs = new Map<string, number>();
    for (const child of node.children) {
      const inner = factsOf(child);
      facts.text += inner.text;
      facts.link ||= inner.link;
      facts.price ||= inner.price;
      facts.short =
        facts.short !== null && inner.short !== null && facts.text <= SHORT_TEXT
          ? facts.short + inner.short
          : null;
      if (isTag(child) && inner.link && inner.price && inner.text <= MAX_ITEM_TEXT) {
        const key = itemKey(child);
        runs.set(key, (runs.get(key) ?? 0) + 1);
      }
    }
    if (!facts.price && facts.short !== null) facts.price = PRICE.test(facts.short);
    for (const run of runs.values()) largest = Math.max(largest, run);
    return facts;
  };
  factsOf(root);
  return largest;
}

const itemKey = (el: Element): string => `${el.name}.${(el.attribs.class ?? '').trim().split(/\s+/)[0]}`;
