import type { Element } from '../parse/dom.js';
import { parentElement } from '../parse/dom.js';
import type { PageKind } from './page-kind.js';
import { keyOf } from './sibling-runs.js';

/**
 * The kinds of page whose items are filled out (fillTemplates): listings and `other`, where most listings and
 * collections land. Held out by site, forums lose precision as much as they gain recall and articles lose on
 * the article set; products gain held out but lose on the pages the trees were fitted on.
 */
const TEMPLATE_KINDS: ReadonlySet<PageKind> = new Set(['listing', 'other']);

/** A run of fewer alike items than this is a pair of columns or a few boxes, not a template repeated. */
const MIN_ITEMS = 4;

/**
 * How far above a block its item may be. A card's title or price sits a few levels below the card; the
 * bound keeps the walk linear in the blocks on a page nested hundreds of levels deep.
 */
const MAX_ITEM_DEPTH = 10;

/**
 * Each block's place in a repeated item template, on the kinds of page that have them (else undefined):
 * blocks at the same path (tags and classes) below alike items of one run share a group, so every card's
 * title is one group and every card's price another. An item is an element that holds two blocks or more
 * and has at least MIN_ITEMS alike siblings (tag and class) holding blocks; a block takes the nearest item
 * above it. -1 for a block in no item. Linear in the blocks (each looks at most MAX_ITEM_DEPTH levels up).
 */
export function itemTemplates(kind: PageKind, blocks: readonly Element[]): Int32Array | undefined {
  if (!TEMPLATE_KINDS.has(kind)) return undefined;
  const blocksUnder = new Map<Element, number>();
  for (const block of blocks) {
    let p: Element | null = block;
    for (let level = 0; p && level <= MAX_ITEM_DEPTH; level++, p = parentElement(p))
      blocksUnder.set(p, (blocksUnder.get(p) ?? 0) + 1);
  }
  // Each element's tag and class as a small number, made once: a path of them stays short whatever the
  // length of a page's class names.
  const kinds = new Map<string, number>();
  const kindOf = new Map<Element, number>();
  const kindIdOf = (el: Element): number => {
    let id = kindOf.get(el);
    if (id === undefined) {
      const key = keyOf(el);
      id = kinds.get(key);
      if (id === undefined) kinds.set(key, (id = kinds.size));
      kindOf.set(el, id);
    }
    return id;
  };
  const alikeUnder = new Map<Element, Map<number, number>>();
  const alike = (parent: Element, kindId: number): number => {
    let counts = alikeUnder.get(parent);
    if (!counts) {
      counts = new Map();
      for (const child of parent.children)
        if (blocksUnder.has(child as Element)) {
          const k = kindIdOf(child as Element);
          counts.set(k, (counts.get(k) ?? 0) + 1);
        }
      alikeUnder.set(parent, counts);
    }
    return counts.get(kindId) ?? 0;
  };
  const runs = new Map<Element, number>();
  const groups = new Map<string, number>();
  return Int32Array.from(blocks, (block) => {
    const path: number[] = [];
    let item: Element = block;
    for (let level = 0; level < MAX_ITEM_DEPTH; level++) {
      const parent = parentElement(item);
      if (!parent) return -1;
      const kindId = kindIdOf(item);
      if ((blocksUnder.get(item) ?? 0) >= 2 && alike(parent, kindId) >= MIN_ITEMS) {
        let run = runs.get(parent);
        if (run === undefined) runs.set(parent, (run = runs.size));
        const name = `${run} ${kindId} ${path.join(' ')}`;
        let group = groups.get(name);
        if (group === undefined) groups.set(name, (group = groups.size));
        return group;
      }
      path.push(kindId);
      item = parent;
    }
    return -1;
  });
}

/**
 * A group's blocks are kept together once this share of its text is kept: the model keeps most cards' titles
 * and drops a few whose looks differ (a link-only title, a short name). Held out by site at 0.7, collections
 * 0.642 -> 0.645, products 0.664 -> 0.666, services 0.824 -> 0.825, listings 0.637 -> 0.638 (trees of seed
 * 100 alike: collections +0.001, products, listings +0.002), no type lower, the article set unchanged; through
 * the service no type lower either (collections 0.733 -> 0.734, products 0.744 -> 0.745). At 0.3 the held-out
 * gain is larger (listings +0.007, collections +0.008, WCXB 0.863 -> 0.864) but on the pages the trees were
 * fitted on collections fall 0.733 -> 0.731, listings and products by 0.001-0.003: there the trees had learnt
 * which cards each site's annotator left out. Dropping groups kept thinly measured nothing.
 */
const FILL_AT = 0.7;
/** Fewer blocks than this in a group are too few to say what the template holds. */
const MIN_GROUP = 4;

/** Keeps (in place) every block of a template group of which FILL_AT of the text is kept already. */
export function fillTemplates(kept: Uint8Array, templates: Int32Array, text: ArrayLike<number>): void {
  const keptText = new Map<number, number>();
  const allText = new Map<number, number>();
  const members = new Map<number, number>();
  for (let i = 0; i < kept.length; i++) {
    const group = templates[i]!;
    if (group < 0) continue;
    allText.set(group, (allText.get(group) ?? 0) + text[i]!);
    members.set(group, (members.get(group) ?? 0) + 1);
    if (kept[i]) keptText.set(group, (keptText.get(group) ?? 0) + text[i]!);
  }
  for (let i = 0; i < kept.length; i++) {
    const group = templates[i]!;
    if (group < 0 || kept[i] || members.get(group)! < MIN_GROUP) continue;
    if ((keptText.get(group) ?? 0) >= FILL_AT * allText.get(group)!) kept[i] = 1;
  }
}
