import type { Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import type { StatsTable } from './block-stats.js';
import { isConcealed } from '../parse/visibility.js';

/** A child's kind among its siblings: tag and class (most elements have none: their tag is their kind). */
export const keyOf = (el: Element): string => (el.attribs.class ? `${el.name}.${el.attribs.class}` : el.name);

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
 * The run of each child of `el` (by its index among the children; none for text), in one pass per parent:
 * runs of alike siblings (a card among cards, a post among posts), so that no block scans its siblings itself.
 */
export function runsOfAlike(el: Element, stats: StatsTable): (Run | undefined)[] {
  const children = el.children;
  const runOf = new Array<Run | undefined>(children.length);
  const runs = new Map<string, Run>();
  // Alike siblings mostly come one after another (items of a list, cells of a row): such a child joins the
  // run of the element before it without its key being made and hashed.
  let last: Element | null = null;
  let lastRun: Run | undefined;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (!isTag(child)) continue;
    let run: Run | undefined;
    if (last !== null && child.name === last.name && child.attribs.class === last.attribs.class)
      run = lastRun!;
    else {
      const key = keyOf(child);
      run = runs.get(key);
      if (run === undefined) runs.set(key, (run = { all: 0, count: 0, text: 0, linkText: 0 }));
    }
    last = child;
    lastRun = run;
    runOf[i] = run;
    run.all++;
    const s = stats.get(child);
    // A concealed sibling (a hidden slide, a closed panel) is no part of the run a reader sees.
    if (!s || s.text === 0 || isConcealed(child)) continue;
    run.count++;
    run.text += s.text;
    run.linkText += s.linkText;
  }
  return runOf;
}
