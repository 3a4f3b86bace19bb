import type { AnyNode, Element } from '../parse/dom.js';
import { isBlockElement, isNeverContent } from '../parse/elements.js';
import type { KindedElement } from '../parse/elements.js';
import { isTag } from '../parse/dom.js';
import { visibleLength } from '../parse/page-signals.js';
import { isConcealed } from '../parse/visibility.js';
import { SHADOW_HOST_ATTRIBUTE } from '../parse/shadow-roots.js';

/**
 * Text statistics of every element and the class, tag and role signals of boilerplate: what main-content
 * rules and block features (block-features.ts) both read.
 */
export interface Stats {
  /** Characters of visible text (white space excluded). */
  text: number;
  /** Characters of visible text inside links. */
  linkText: number;
  commas: number;
  /** Text of this element's own phrasing content: direct text nodes and inline children. */
  ownText: number;
  ownLinkText: number;
  ownCommas: number;
  /**
   * Elements in this one's subtree (itself included, concealed ones measured apart too) that are blocks with
   * text of their own: block features do not walk a subtree without one (an inline run of links and emphasis).
   */
  blocks: number;
}

/**
 * Each element's statistics for one analysis of a page, kept on the element itself (the fields dom-nodes.ts
 * gives every element): a Map keyed by elements hashes each of the page's elements and grows several times
 * on the way, a twentieth of main content's time. An element measured by a later table is that table's.
 */
export class StatsTable {
  /** What each distinct class or id string of the page says (WORD_* bits), worked out once. */
  private readonly words = new Map<string, number>();

  /**
   * Which of NEGATIVE, STRONG_NEGATIVE and POSITIVE an element's `class id` (classAndId) matches, as WORD_*
   * bits. Each pattern is a word between separators, so what matches `class id` is what matches the class
   * or the id: they are read apart, each string tested once a page and never copied to be looked up.
   */
  wordsOf(el: Element): number {
    const { class: names, id } = el.attribs;
    let bits = 0;
    if (names) bits = this.wordsIn(names);
    if (id) bits |= this.wordsIn(id);
    return bits;
  }

  private wordsIn(names: string): number {
    let bits = this.words.get(names);
    if (bits === undefined) {
      bits =
        (NEGATIVE.test(names) ? WORD_NEGATIVE : 0) |
        (STRONG_NEGATIVE.test(names) ? WORD_STRONG_NEGATIVE : 0) |
        (POSITIVE.test(names) ? WORD_POSITIVE : 0);
      this.words.set(names, bits);
    }
    return bits;
  }

  get(el: Element): Stats | undefined {
    const row = el as Partial<KindedElement>;
    return row.measuredBy === this ? (row.measured as Stats) : undefined;
  }

  set(el: Element, stats: Stats): void {
    (el as KindedElement).measuredBy = this;
    (el as KindedElement).measured = stats;
  }
}

/** StatsTable.wordsOf's bits. */
export const WORD_NEGATIVE = 1;
export const WORD_STRONG_NEGATIVE = 2;
export const WORD_POSITIVE = 4;

export const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'footer', 'button', 'menu']);
/** Class/id words that mark boilerplate whatever its size: comment threads, sharing, related links. */
export const STRONG_NEGATIVE =
  /(^|[\s_-])(comments?|comment-list|commentlist|disqus|respond|replies|related|recommended|share|sharing|social|newsletter|subscribe|cookie|consent|sidebar|outbrain|taboola|advert|breadcrumbs?|most-read|mostread|most-popular|popular|trending|caption|credits?|byline|dateline|timestamp|author|published|gallery|slideshow|carousel|lightbox)([\s_-]|$)/i;
export const BOILERPLATE_ROLES = new Set([
  'navigation',
  'complementary',
  'contentinfo',
  'banner',
  'menu',
  'search',
]);
export const NEGATIVE =
  /(^|[\s_-])(comment|comments|meta|footer|footnote-back|masthead|sidebar|sponsor|shopping|tags?|tool|widget|related|recommend|share|sharing|social|promo|advert|ads?|banner|breadcrumbs?|cookie|consent|newsletter|subscribe|signup|popup|modal|nav|navbar|navigation|menu|pagination|pager|byline-share|author-bio|outbrain|taboola|disqus|rating|print|skip)([\s_-]|$)/i;
export const POSITIVE =
  /(^|[\s_-])(article|body|content|entry|hentry|h-entry|main|page|post|text|blog|story|prose|markdown|rich-?text)([\s_-]|$)/i;

export function classAndId(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

function countCommas(text: string): number {
  let n = 0;
  for (let i = text.indexOf(','); i !== -1; i = text.indexOf(',', i + 1)) n++;
  for (let i = text.indexOf('，'); i !== -1; i = text.indexOf('，', i + 1)) n++;
  return n;
}

/**
 * How `measure` treats concealed elements (isConcealed): `skip` them; measure them `apart` (for their own
 * blocks, which main content may reveal; their text is not part of their parent's); or, `inside` one
 * measured apart, count elements hidden again as the rest of its text.
 */
export type ConcealedText = 'skip' | 'apart' | 'inside';

/** Computes text statistics for every element in one bottom-up pass. */
export function measure(root: AnyNode, stats: StatsTable, concealed: ConcealedText = 'skip'): Stats {
  const total: Stats = {
    text: 0,
    linkText: 0,
    commas: 0,
    ownText: 0,
    ownLinkText: 0,
    ownCommas: 0,
    blocks: 0,
  };
  if (!('children' in root)) return total;
  for (const child of root.children) {
    if (child.type === 'text') {
      const length = visibleLength(child.data);
      if (length === 0) continue;
      const commas = countCommas(child.data);
      total.text += length;
      total.ownText += length;
      total.commas += commas;
      total.ownCommas += commas;
    } else if (isTag(child)) {
      if (isNeverContent(child)) continue;
      if (concealed !== 'inside' && isConcealed(child)) {
        if (concealed === 'apart') total.blocks += measure(child, stats, 'inside').blocks;
        continue;
      }
      const sub = measure(child, stats, concealed);
      const linkText = child.name === 'a' ? sub.text : sub.linkText;
      total.text += sub.text;
      total.commas += sub.commas;
      total.linkText += linkText;
      total.blocks += sub.blocks;
      // A shadow host holding blocks is a component laid out as a block, not a run of inline text.
      const block =
        isBlockElement(child) || (SHADOW_HOST_ATTRIBUTE in child.attribs && sub.ownText < sub.text);
      if (!block) {
        total.ownText += sub.text;
        total.ownCommas += sub.commas;
        total.ownLinkText += linkText;
      }
    }
  }
  if (isTag(root)) {
    if (isBlockElement(root) && total.ownText > 0) total.blocks++;
    stats.set(root, total);
  }
  return total;
}

export function linkDensity(stats: Stats | undefined): number {
  return stats && stats.text > 0 ? stats.linkText / stats.text : 0;
}

/** Boilerplate inside the chosen content: navigation, sharing widgets, link farms, forms. */
export function isBoilerplate(el: Element, stats: StatsTable, pageText: number, strict = false): boolean {
  const s = stats.get(el);
  const text = s?.text ?? 0;
  const words = stats.wordsOf(el);
  const positive = (words & WORD_POSITIVE) !== 0;
  if (strict) {
    if (words & WORD_STRONG_NEGATIVE && !positive) return true;
    if (el.name === 'figcaption') return true;
    // A short block that is nothing but a link: "Read more", "Related: ...", promo lines.
    if (text > 0 && text < 200 && (s?.linkText ?? 0) / text > 0.75 && (el.name === 'p' || el.name === 'li'))
      return true;
  }
  // Whatever its tag or class, an element holding most of the page's text is a page wrapper.
  if (text > pageText * 0.5) return false;
  if (BOILERPLATE_TAGS.has(el.name)) return true;
  const role = el.attribs.role;
  if (role && BOILERPLATE_ROLES.has(role)) return true;
  const density = linkDensity(s);
  // Whole pages are often wrapped in a <form> (ASP.NET); only small or link-heavy forms are boilerplate.
  if (el.name === 'form') return text < 500 || density > 0.5;
  if (words & WORD_NEGATIVE && !positive) {
    return (s?.text ?? 0) < 1000 || density > 0.3;
  }
  if (el.name === 'ul' || el.name === 'ol' || el.name === 'div' || el.name === 'section') {
    // A link farm: mostly links and little running text besides them.
    const plain = (s?.text ?? 0) - (s?.linkText ?? 0);
    return density > 0.6 && plain < 200;
  }
  return false;
}
