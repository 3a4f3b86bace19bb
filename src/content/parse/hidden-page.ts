import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { visibleLength } from './page-signals.js';
import { renameElement } from './dom-nodes.js';
import { NEVER_CONTENT } from './elements.js';
import { forgetConcealed, isHiddenByAuthor, isInvisible } from './visibility.js';

/** Marks a `<noscript>` read as the page's content (it is a `div` from then on). */
export const NOSCRIPT_PAGE_ATTRIBUTE = 'data-pagewright-noscript';
/** Marks a hidden element read as the page's content (its hiding taken off). */
export const HIDDEN_PAGE_ATTRIBUTE = 'data-pagewright-unhidden';

/** Fallback text shorter than this is a "please enable JavaScript" notice, never the page. */
const MIN_PAGE_TEXT = 200;

/** A main landmark showing less text than this (a skip link, a breadcrumb) shows nothing of its own. */
const EMPTY_MAIN = 50;

const isMainLandmark = (el: Element): boolean => el.name === 'main' || el.attribs.role === 'main';

const HIDING_DECLARATIONS = /(^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*/gi;

/** A candidate for the page waiting for its scripts: a `<noscript>`, or content its author hid until then. */
export const mayHoldHiddenPage = (name: string, attribs: Record<string, string>): boolean =>
  // Asked of every element as it is made: the attributes first, since nearly every element shows.
  name === 'noscript' || (isHiddenByAuthor(attribs) && !NEVER_CONTENT.has(name));

/**
 * Some pages are shipped whole but hidden until their scripts run, and a scraper that reads no script sees
 * only the shell around them:
 * - script apps (forum threads, for one) put the server-rendered page inside `<noscript>`;
 * - streamed React pages put each finished part in a `<div hidden>` that a script moves into place;
 * - anti-flicker wrappers hide the whole body (`visibility:hidden`) until the app has loaded.
 * When one such element (the outermost of its kind) holds more readable text outside links than everything
 * visible outside them put together (so never a hidden menu), or is inside a main landmark that shows next to
 * nothing else (the menus around it may be long), it is the page: a
 * `<noscript>` becomes a `div`, a hidden element loses its hiding. A page whose script did render its content
 * (the browser engine's capture) has that text outside, so nothing changes there. One pass over the tree.
 */
export function revealHiddenPage(root: AnyNode, candidates: Element[]): void {
  if (candidates.length === 0) return;
  const isCandidate = new Set(candidates);
  const inside = new Map<Element, { text: number; links: number; inMain: boolean }>();
  let outside = 0;
  let mainOutside = 0;
  const walk = (node: AnyNode, within: Element | null, inLink: boolean, inMain: boolean): void => {
    if (node.type === 'text') {
      const n = visibleLength(node.data);
      if (!within) {
        outside += n;
        if (inMain) mainOutside += n;
        return;
      }
      const counts = inside.get(within)!;
      counts.text += n;
      if (inLink) counts.links += n;
      return;
    }
    if (!('children' in node)) return;
    const main = inMain || (isTag(node) && isMainLandmark(node));
    let next = within;
    if (isTag(node)) {
      if (!within && isCandidate.has(node)) {
        next = node;
        // A candidate is in the main landmark when it is the main or inside it.
        inside.set(node, { text: 0, links: 0, inMain: main });
      } else if (isInvisible(node)) return;
    }
    const link = inLink || (isTag(node) && node.name === 'a');
    for (const child of node.children) walk(child, next, link, main);
  };
  walk(root, null, false, false);
  // A hidden menu is links; a hidden page is prose: only text outside links counts for a candidate.
  let best: Element | null = null;
  let bestText = 0;
  let bestInMain: Element | null = null;
  let bestInMainText = 0;
  for (const [el, { text, links, inMain }] of inside) {
    if (text - links > bestText) [best, bestText] = [el, text - links];
    if (inMain && text - links > bestInMainText) [bestInMain, bestInMainText] = [el, text - links];
  }
  // A page's main landmark that shows (next to) nothing while it hides a page's worth of prose is content
  // waiting for a script, however long the menus around it.
  if (bestInMain && bestInMainText >= MIN_PAGE_TEXT && mainOutside < EMPTY_MAIN) best = bestInMain;
  else if (!best || bestText < MIN_PAGE_TEXT || bestText <= outside) return;
  if (best.name === 'noscript') {
    renameElement(best, 'div');
    best.attribs[NOSCRIPT_PAGE_ATTRIBUTE] = '';
    return;
  }
  delete best.attribs.hidden;
  if (best.attribs.style !== undefined)
    best.attribs.style = best.attribs.style.replace(HIDING_DECLARATIONS, '$1');
  best.attribs[HIDDEN_PAGE_ATTRIBUTE] = '';
  forgetConcealed(best);
}
