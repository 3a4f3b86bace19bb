import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { visibleLength } from './page-signals.js';
import { isInvisible } from './visibility.js';

/** Marks a `<noscript>` read as the page's content (it is a `div` from then on). */
export const NOSCRIPT_PAGE_ATTRIBUTE = 'data-pagewright-noscript';

/** Fallback text shorter than this is a "please enable JavaScript" notice, never the page. */
const MIN_PAGE_TEXT = 200;

/**
 * Pages built by a script app often ship the whole server-rendered page inside `<noscript>` for readers
 * without JavaScript (forum threads, for one) and nothing but the app's shell outside it. A browser with
 * scripts off shows that fallback; a scraper that drops `<noscript>` returns an empty page. When one
 * `<noscript>` holds more readable text than everything outside the page's `<noscript>` elements put
 * together, it is the page: it becomes a `div`. A page whose script did render its content (the browser
 * engine's capture) has that text outside, so its fallback stays dropped. One pass over the tree.
 */
export function revealNoscriptPage(root: AnyNode, noscripts: Element[]): void {
  if (noscripts.length === 0) return;
  const inside = new Map<Element, number>();
  let outside = 0;
  const walk = (node: AnyNode, within: Element | null): void => {
    if (node.type === 'text') {
      const n = visibleLength(node.data);
      if (within) inside.set(within, (inside.get(within) ?? 0) + n);
      else outside += n;
      return;
    }
    if (!('children' in node)) return;
    let next = within;
    if (isTag(node)) {
      if (node.name === 'noscript') next = within ?? node;
      else if (isInvisible(node)) return;
    }
    for (const child of node.children) walk(child, next);
  };
  walk(root, null);
  let best: Element | null = null;
  let bestText = 0;
  for (const [el, text] of inside) if (text > bestText) [best, bestText] = [el, text];
  if (!best || bestText < MIN_PAGE_TEXT || bestText <= outside) return;
  best.name = 'div';
  best.attribs[NOSCRIPT_PAGE_ATTRIBUTE] = '';
}
