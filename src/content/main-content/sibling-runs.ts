import type { Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import type { Stats } from './block-stats.js';
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

/** Kinds of children compared one by one before they are looked up by key: most parents have a few. */
const FEW_KINDS = 8;
const NO_CHILDREN: (Run | undefined)[] = [];
/** The first kinds of the parent being read: kept between calls, so that no call allocates them. */
const kindNames: string[] = [];
const kindClasses: string[] = [];
const kindRuns: Run[] = [];

/**
 * The run of each child of `el` (by its index among the children; none for text), in one pass per parent:
 * runs of alike siblings (a card among cards, a post among posts), so that no block scans its siblings itself.
 * Called for every element with text, so a parent's first few kinds are matched by tag and class without a
 * key string or a map.
 */
export function runsOfAlike(el: Element, stats: Map<Element, Stats>): (Run | undefined)[] {
  const children = el.children;
  if (children.length === 0) return NO_CHILDREN;
  const runOf = new Array<Run | undefined>(children.length);
  let kinds = 0;
  let byKey: Map<string, Run> | undefined;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (!isTag(child)) continue;
    const name = child.name;
    const cls = child.attribs.class || '';
    let run: Run | undefined;
    if (byKey === undefined) {
      for (let k = 0; k < kinds; k++) {
        if (kindNames[k] === name && kindClasses[k] === cls) {
          run = kindRuns[k];
          break;
        }
      }
      if (run === undefined && kinds < FEW_KINDS) {
        run = { all: 0, count: 0, text: 0, linkText: 0 };
        kindRuns[kinds] = run;
        kindNames[kinds] = name;
        kindClasses[kinds] = cls;
        kinds++;
      } else if (run === undefined) {
        byKey = new Map();
        for (let k = 0; k < kinds; k++) byKey.set(`${kindNames[k]} ${kindClasses[k]}`, kindRuns[k]!);
      }
    }
    if (run === undefined) {
      // A tag name ends at white space: the first space of the key parts tag from class.
      const key = `${name} ${cls}`;
      run = byKey!.get(key);
      if (run === undefined) byKey!.set(key, (run = { all: 0, count: 0, text: 0, linkText: 0 }));
    }
    runOf[i] = run;
    run.all++;
    const s = stats.get(child);
    // A concealed sibling (a hidden slide, a closed panel) is no part of the run a reader sees.
    if (!s || s.text === 0 || isConcealed(child)) continue;
    run.count++;
    run.text += s.text;
    run.linkText += s.linkText;
  }
  // A class can be a slice of the page's HTML: the scratch lists do not keep it alive.
  kindClasses.fill('', 0, kinds);
  return runOf;
}
