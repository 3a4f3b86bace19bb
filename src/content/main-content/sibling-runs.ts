import type { Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import type { Stats } from './block-stats.js';
import { isConcealed } from '../parse/visibility.js';

/** A child's kind among its siblings: tag and class. */
export const keyOf = (el: Element): string => `${el.name}.${el.attribs.class ?? ''}`;

/** Children of one kind (tag and class): all of them, and those with text with their text and link text. */
interface Run {
  all: number;
  count: number;
  text: number;
  linkText: number;
  /** What block features make of the run for its members, made once (block-features.ts). */
  group?: { share: number; count: number; density: number; at: number };
}

/**
 * The children of `el` by kind, in one pass per parent: runs of alike siblings (a card among cards, a post
 * among posts), so that no block scans its siblings itself.
 */
export function runsOfAlike(el: Element, stats: Map<Element, Stats>): Map<string, Run> {
  const runs = new Map<string, Run>();
  for (const child of el.children) {
    if (!isTag(child)) continue;
    const run = runs.get(keyOf(child)) ?? { all: 0, count: 0, text: 0, linkText: 0 };
    runs.set(keyOf(child), run);
    run.all++;
    const s = stats.get(child);
    // A concealed sibling (a hidden slide, a closed panel) is no part of the run a reader sees.
    if (!s || s.text === 0 || isConcealed(child)) continue;
    run.count++;
    run.text += s.text;
    run.linkText += s.linkText;
  }
  return runs;
}
