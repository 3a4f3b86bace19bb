import type { Element } from '../parse/dom.js';
import { isTag, parentElement } from '../parse/dom.js';
import { isBlockElement, isNeverContent } from '../parse/elements.js';
import { isConcealed, isDialog } from '../parse/visibility.js';
import { runsOfAlike } from './sibling-runs.js';
import { endsSentence, ownTextOf, shares } from './block-text.js';
import type { Stats, StatsTable } from './block-stats.js';
import {
  BOILERPLATE_ROLES,
  BOILERPLATE_TAGS,
  WORD_NEGATIVE,
  WORD_POSITIVE,
  WORD_STRONG_NEGATIVE,
  linkDensity,
} from './block-stats.js';
import { PAGE_KINDS } from './page-kind.js';
import type { PageKind } from './page-kind.js';

/**
 * A block is an element that starts a block of text and has text of its own (its direct text and inline
 * children): a paragraph, a list item, a table cell, a heading, a div holding a line. Its features describe
 * the block, its ancestors (text share, link density, class and tag signals, repeated siblings), the page
 * (kind, size) and what the main-content rules decided about it, so a model can keep the rules' choice
 * where it holds and learn where a kind of page means something else by "main".
 */
export interface BlockRows {
  elements: Element[];
  /** `elements.length` rows of FEATURE_COUNT values. */
  features: Float32Array;
  /** Each block's own text, when asked for (training reads it; inference does not). */
  texts?: string[];
}

/**
 * The page's visible blocks, and apart from them the blocks inside concealed elements (visibility.ts), each
 * with features computed as if its hidden subtree were shown: the visible blocks' features are the same
 * whether or not a page hides anything, and the model may still reveal what the author collapsed.
 */
export interface Blocks extends BlockRows {
  concealed: BlockRows;
}

/** What the rules chose: the roots rendered and the elements left out inside them. */
export interface RuleChoice {
  roots: Set<Element>;
  skip: (el: Element) => boolean;
}

/** Class/id word families, each a feature of how near the block's nearest ancestor with one of them is. */
const FAMILIES = {
  product:
    /(^|[\s_-])(product|price|sku|offer|cart|buy|specs?|specifications?|details?|description|features?|attributes?)([\s_-]|$)/i,
  item: /(^|[\s_-])(item|items|card|cards|tile|result|results|listing|grid|teaser|entry|entries|row)([\s_-]|$)/i,
  title: /(^|[\s_-])(title|headline|heading|name)([\s_-]|$)/i,
  meta: /(^|[\s_-])(date|time|author|byline|tags?|category|categories|meta|info|stats?)([\s_-]|$)/i,
  nav: /(^|[\s_-])(nav|navbar|menu|breadcrumbs?|header|masthead|topbar|toolbar|tabs?)([\s_-]|$)/i,
  foot: /(^|[\s_-])(footer|foot|bottom|copyright|legal|sitemap)([\s_-]|$)/i,
  body: /(^|[\s_-])(content|body|main|article|text|prose|story|container)([\s_-]|$)/i,
} as const;

/** Features of the blocks just before and after, copied onto each block's row. */
const NEIGHBOUR_FEATURES = ['logOwnText', 'ownLinkDensity', 'ruleKept', 'isHeading'] as const;

export const FEATURE_NAMES = [
  'logOwnText',
  'ownLinkDensity',
  'commasPer100',
  'isP',
  'isLi',
  'isCell',
  'isHeading',
  'isH1',
  'isPre',
  'isDefinition',
  'isDivLike',
  'depth',
  'position',
  'digitShare',
  'hasPrice',
  'endsSentence',
  'inBoilerplateTag',
  'inHeader',
  'inFooter',
  'inMainOrArticle',
  'negativeClassNear',
  'strongNegativeNear',
  'positiveClassNear',
  'inRuleRoots',
  'ruleSkipped',
  'parentShare',
  'parentLinkDensity',
  'grandparentShare',
  'grandparentLinkDensity',
  'greatShare',
  'greatLinkDensity',
  'repeatedSelf',
  'repeatedParent',
  ...PAGE_KINDS.map((k) => `kind_${k}`),
  'logPageText',
  'pageLinkDensity',
  'ruleShare',
  'inForm',
  'inTable',
  'inList',
  'headingLevel',
  'allLink',
  'nearItemprop',
  'postLikeNear',
  'afterFirstH1',
  'uppercaseShare',
  'groupShare',
  'groupCount',
  'groupLinkDensity',
  'groupNear',
  ...Object.keys(FAMILIES).map((f) => `${f}Near`),
  ...NEIGHBOUR_FEATURES.flatMap((n) => [`prev_${n}`, `next_${n}`]),
  'sameParentPrev',
  'sameParentNext',
] as const;
export const FEATURE_COUNT = FEATURE_NAMES.length;

const POST_LIKE = /(^|[\s_-])(comments?|reply|replies|post|posts|message|answer|review|reviews)([\s_-]|$)/i;
const PRICE = /[$€£¥₹]\s?\d|\d\s?[$€£¥₹]|\b(?:USD|EUR|GBP)\b/;
const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const DIV_LIKE = new Set([
  'div',
  'section',
  'article',
  'main',
  'span',
  'center',
  'header',
  'footer',
  'aside',
]);

interface Context {
  depth: number;
  boiler: boolean;
  header: boolean;
  footer: boolean;
  main: boolean;
  /**
   * Depth of the nearest ancestor-or-self with the signal, -1 when none: a block at depth d reads it as
   * 1 / (levels up + 1). Kept as depths so that an element without class or id shares its parent's values.
   */
  negative: number;
  strong: number;
  positive: number;
  postLike: number;
  itemprop: number;
  families: readonly number[];
  inRoots: boolean;
  skipped: boolean;
  form: boolean;
  table: boolean;
  list: boolean;
  /** Inside an element its author hid (isConcealed): its blocks go to `Blocks.concealed`. */
  concealed: boolean;
  /** Inside a dialog (role dialog or alertdialog, aria-modal). */
  dialog: boolean;
  /** log(1 + this element's siblings of its tag and class), and the same for its parent. */
  repeats: number;
  parentRepeats: number;
  /** The nearest ancestor that is one of a run of siblings alike (tag and class): cards, posts, menu items. */
  group: { share: number; count: number; density: number; at: number };
}

const FAMILY_PATTERNS = Object.values(FAMILIES);
const NO_GROUP = { share: 0, count: 0, density: 0, at: -1 };
const NO_FAMILIES: readonly number[] = FAMILY_PATTERNS.map(() => -1);

/** 1 for a signal on the block itself (`at` = its depth), 1/2 on its parent..., 0 for none (-1). */
const nearness = (depth: number, at: number): number => (at < 0 ? 0 : 1 / (depth - at + 1));

/** log(1 + n) of the counts a row holds (characters, siblings), read from a table below its size. */
const LOG1P_TABLE = Float64Array.from({ length: 4096 }, (_, n) => Math.log1p(n));
const log1pCount = (n: number): number =>
  n < LOG1P_TABLE.length && Number.isInteger(n) && n >= 0 ? LOG1P_TABLE[n]! : Math.log1p(n);

/**
 * The class/id patterns block features read besides the boilerplate words StatsTable.wordsOf gives (its WORD_*
 * bits, 1 to 4), as bits above those: tested once per distinct class or id string.
 */
const SIGNAL_POST_LIKE = 8;
const FAMILY_SHIFT = 4;

function classSignals(names: string): number {
  let bits = 0;
  if (POST_LIKE.test(names)) bits |= SIGNAL_POST_LIKE;
  FAMILY_PATTERNS.forEach((pattern, i) => {
    if (pattern.test(names)) bits |= 1 << (FAMILY_SHIFT + i);
  });
  return bits;
}

/** Every block of the page under `body` with its features, in document order. One pass; linear. */
export function blockFeatures(
  body: Element,
  stats: StatsTable,
  kind: PageKind,
  rules: RuleChoice,
  withTexts = false,
): Blocks {
  const pageStats = stats.get(body);
  const pageText = Math.max(1, pageStats?.text ?? 0);
  let ruleText = 0;
  for (const root of rules.roots) ruleText += stats.get(root)?.text ?? 0;
  // measure counted the blocks (concealed ones too): the shown rows are sized once, the rare hidden ones grow.
  const shown = new RowBuffer(pageStats?.blocks ?? 0);
  const hidden = new RowBuffer(0);
  let seen = 0;
  let afterH1 = false;
  const share = (el: Element | null): number => (el ? (stats.get(el)?.text ?? 0) / pageText : 0);
  const density = (el: Element | null): number => (el ? linkDensity(stats.get(el)) : 0);

  const kindAt = PAGE_KINDS.indexOf(kind);
  const pageLogText = Math.log1p(pageText);
  const pageLinkDensity = linkDensity(pageStats);

  const emit = (el: Element, s: Stats, c: Context): void => {
    const own = ownTextOf(el);
    const [digits, upper] = shares(own);
    const parent = parentElement(el);
    const grand = parent && parentElement(parent);
    const great = grand && parentElement(grand);
    const name = el.name;
    const level = HEADING_LEVEL[name] ?? 0;
    if (name === 'h1' && !c.concealed) afterH1 = true;
    const into = c.concealed ? hidden : shown;
    into.elements.push(el);
    if (withTexts) into.texts.push(own);
    // One row, written in FEATURE_NAMES order; 1 / (levels up + 1) for the "near" signals (nearness).
    const row = into.grow();
    let k = into.used;
    row[k++] = log1pCount(s.ownText);
    row[k++] = s.ownText > 0 ? s.ownLinkText / s.ownText : 0;
    row[k++] = s.ownText > 0 ? (100 * s.ownCommas) / s.ownText : 0;
    row[k++] = +(name === 'p');
    row[k++] = +(name === 'li');
    row[k++] = +(name === 'td' || name === 'th');
    row[k++] = +(level > 0);
    row[k++] = +(name === 'h1');
    row[k++] = +(name === 'pre');
    row[k++] = +(name === 'dd' || name === 'dt');
    row[k++] = +DIV_LIKE.has(name);
    row[k++] = Math.min(c.depth, 60);
    row[k++] = seen / pageText;
    row[k++] = digits;
    row[k++] = +PRICE.test(own);
    row[k++] = +endsSentence(own);
    row[k++] = +c.boiler;
    row[k++] = +c.header;
    row[k++] = +c.footer;
    row[k++] = +c.main;
    row[k++] = nearness(c.depth, c.negative);
    row[k++] = nearness(c.depth, c.strong);
    row[k++] = nearness(c.depth, c.positive);
    row[k++] = +c.inRoots;
    row[k++] = +c.skipped;
    row[k++] = share(parent);
    row[k++] = density(parent);
    row[k++] = share(grand);
    row[k++] = density(grand);
    row[k++] = share(great);
    row[k++] = density(great);
    row[k++] = c.repeats;
    row[k++] = c.parentRepeats;
    for (let i = 0; i < PAGE_KINDS.length; i++) row[k++] = +(i === kindAt);
    row[k++] = pageLogText;
    row[k++] = pageLinkDensity;
    row[k++] = ruleText / pageText;
    row[k++] = +c.form;
    row[k++] = +c.table;
    row[k++] = +c.list;
    row[k++] = level;
    row[k++] = +(s.ownText > 0 && s.ownLinkText >= s.ownText);
    row[k++] = nearness(c.depth, c.itemprop);
    row[k++] = nearness(c.depth, c.postLike);
    row[k++] = +afterH1;
    row[k++] = upper;
    row[k++] = c.group.share;
    row[k++] = log1pCount(c.group.count);
    row[k++] = c.group.density;
    row[k++] = nearness(c.depth, c.group.at);
    for (const at of c.families) row[k++] = nearness(c.depth, at);
    // The neighbour slots stay 0 here: fillNeighbours writes them once every row is known.
    into.used += FEATURE_COUNT;
    if (!c.concealed) seen += s.ownText;
  };

  const signals = new Map<string, number>();
  const signalsOf = (names: string): number => {
    let found = signals.get(names);
    if (found === undefined) signals.set(names, (found = classSignals(names)));
    return found;
  };
  /** `el`'s blocks, and its children's with their contexts; `s`: its stats, with some text. */
  const visit = (el: Element, s: Stats, c: Context): void => {
    if (isBlockElement(el) && s.ownText > 0) emit(el, s, c);
    const runOf = runsOfAlike(el, stats);
    for (let i = 0; i < el.children.length; i++) {
      const child = el.children[i]!;
      if (!isTag(child) || isNeverContent(child)) continue;
      // A child without text, or without a block in its subtree, has no block: no context is built for it.
      const childStats = stats.get(child);
      if (childStats === undefined || childStats.text === 0 || childStats.blocks === 0) continue;
      const concealed = c.concealed || isConcealed(child);
      const dialog = c.dialog || isDialog(child);
      // Nothing hidden in a dialog (a sign-in form, a notice, a video's modal) is main content, whatever it says.
      // (A concealed element analysePage did not measure has no stats: it was skipped above.)
      if (concealed && dialog) continue;
      const attribs = child.attribs;
      // Most elements have no class or id: their signals are their ancestors', a level further. The class and
      // the id are read apart: every pattern is a word between separators, so what matches `class id`
      // (classAndId) is what matches the class or the id, and neither string is copied to be looked up.
      let found = 0;
      if (attribs.class || attribs.id) {
        found = stats.wordsOf(child);
        if (attribs.class) found |= signalsOf(attribs.class);
        if (attribs.id) found |= signalsOf(attribs.id);
      }
      const depth = c.depth + 1;
      const role = attribs.role ?? '';
      const inRoots = c.inRoots || rules.roots.has(child);
      const run = runOf[i]!; // every child element has its run
      visit(child, childStats, {
        depth,
        repeats: log1pCount(run.all - 1),
        parentRepeats: c.repeats,
        boiler: c.boiler || BOILERPLATE_TAGS.has(child.name) || BOILERPLATE_ROLES.has(role),
        header: c.header || child.name === 'header' || role === 'banner',
        footer: c.footer || child.name === 'footer' || role === 'contentinfo',
        main: c.main || child.name === 'main' || child.name === 'article' || role === 'main',
        negative: found & WORD_NEGATIVE ? depth : c.negative,
        strong: found & WORD_STRONG_NEGATIVE ? depth : c.strong,
        positive: found & WORD_POSITIVE ? depth : c.positive,
        postLike: found & SIGNAL_POST_LIKE ? depth : c.postLike,
        itemprop: 'itemprop' in attribs ? depth : c.itemprop,
        families:
          found >> FAMILY_SHIFT
            ? c.families.map((at, i) => (found & (1 << (FAMILY_SHIFT + i)) ? depth : at))
            : c.families,
        inRoots,
        // The rules never render a concealed element: the model alone may reveal it.
        skipped: concealed || c.skipped || (inRoots && !rules.roots.has(child) && rules.skip(child)),
        form: c.form || child.name === 'form',
        table: c.table || child.name === 'table',
        list: c.list || child.name === 'ul' || child.name === 'ol',
        concealed,
        dialog,
        // One group for all the siblings of a run (they share its figures and depth).
        group:
          run.count >= 2
            ? (run.group ??= {
                share: run.text / pageText,
                count: run.count,
                density: run.linkText / Math.max(1, run.text),
                at: depth,
              })
            : c.group,
      });
    }
  };
  const bodyParent = parentElement(body);
  if (pageStats !== undefined && pageStats.text > 0)
    visit(body, pageStats, {
      depth: 0,
      repeats: bodyParent
        ? Math.log1p(runsOfAlike(bodyParent, stats)[bodyParent.children.indexOf(body)]!.all - 1)
        : 0,
      parentRepeats: 0,
      boiler: false,
      header: false,
      footer: false,
      main: false,
      negative: -1,
      strong: -1,
      positive: -1,
      postLike: -1,
      itemprop: -1,
      families: NO_FAMILIES,
      inRoots: rules.roots.has(body),
      skipped: false,
      form: false,
      table: false,
      list: false,
      concealed: false,
      dialog: false,
      group: NO_GROUP,
    });
  return { ...shown.finish(withTexts), concealed: hidden.finish(withTexts) };
}

/** Rows of features written in place, grown by doubling past the rows expected. */
class RowBuffer {
  readonly elements: Element[] = [];
  readonly texts: string[] = [];
  rows: Float32Array;
  used = 0;

  constructor(expected: number) {
    this.rows = new Float32Array(expected * FEATURE_COUNT);
  }

  /** The buffer, with room for one more row at `used`. */
  grow(): Float32Array {
    if (this.used + FEATURE_COUNT > this.rows.length) {
      const grown = new Float32Array(Math.max(64 * FEATURE_COUNT, this.rows.length * 2));
      grown.set(this.rows);
      this.rows = grown;
    }
    return this.rows;
  }

  finish(withTexts: boolean): BlockRows {
    const features = this.used === this.rows.length ? this.rows : this.rows.slice(0, this.used);
    fillNeighbours(this.elements, features);
    return { elements: this.elements, features, texts: withTexts ? this.texts : undefined };
  }
}

/** The last slots of a row: each neighbour feature before and after, then the two same-parent flags. */
const NEIGHBOUR_SLOTS = NEIGHBOUR_FEATURES.length * 2 + 2;
const INDEX = Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, i])) as Record<string, number>;
const NEIGHBOUR_FROM = NEIGHBOUR_FEATURES.map((n) => (n === 'ruleKept' ? -1 : INDEX[n]!));

/** Whether the rules keep block `row`: inside their roots and not left out. */
export const ruleKept = (blocks: Pick<Blocks, 'features'>, row: number): boolean =>
  blocks.features[row * FEATURE_COUNT + INDEX.inRuleRoots!] === 1 &&
  blocks.features[row * FEATURE_COUNT + INDEX.ruleSkipped!] === 0;

/**
 * On forum pages, the blocks that are code (pre) right after another block of the same parent: a post's
 * snippet, which keepBlocks keeps with the post. Elsewhere the truths disagree about code (WCXB keeps an
 * article's listings on some blogs and drops them on others; docs repeat code under each language's tab).
 */
export function codeAfterProse(kind: PageKind, features: Float32Array): Uint8Array | undefined {
  if (kind !== 'forum') return undefined;
  const rows = features.length / FEATURE_COUNT;
  return Uint8Array.from(
    { length: rows },
    (_, r) =>
      +(
        features[r * FEATURE_COUNT + INDEX.isPre!] === 1 &&
        features[r * FEATURE_COUNT + INDEX.sameParentPrev!] === 1
      ),
  );
}

/** Copies each block's neighbours' features onto its row (the slots emit left at the end of the row). */
function fillNeighbours(elements: Element[], features: Float32Array): void {
  const n = elements.length;
  const slots = FEATURE_COUNT - NEIGHBOUR_SLOTS;
  const value = (row: number, from: number): number =>
    from === -1 ? +ruleKept({ features }, row) : features[row * FEATURE_COUNT + from]!;
  for (let r = 0; r < n; r++) {
    const at = r * FEATURE_COUNT + slots;
    NEIGHBOUR_FROM.forEach((from, j) => {
      features[at + 2 * j] = r > 0 ? value(r - 1, from) : 0;
      features[at + 2 * j + 1] = r + 1 < n ? value(r + 1, from) : 0;
    });
    const parent = elements[r]!.parent;
    features[at + 2 * NEIGHBOUR_FROM.length] = +(r > 0 && elements[r - 1]!.parent === parent);
    features[at + 2 * NEIGHBOUR_FROM.length + 1] = +(r + 1 < n && elements[r + 1]!.parent === parent);
  }
}
