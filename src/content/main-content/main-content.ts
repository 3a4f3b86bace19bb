import type { Document, Element } from '../parse/dom.js';
import { bodyOf, isTag, parentElement } from '../parse/dom.js';
import { isBlockElement } from '../parse/elements.js';
import { StatsTable, classAndId, measure } from './block-stats.js';
import { FEATURE_NAMES, blockFeatures, codeAfterProse, ruleKept } from './block-features.js';
import type { BlockRows, Blocks, RuleChoice } from './block-features.js';
import { CONTEXT_FEATURES, containersOf, contextFeatures } from './block-context.js';
import { checkModel, predict } from './block-model.js';
import { isConcealed } from '../parse/visibility.js';
import { consentNotices } from './consent-notice.js';
import { fillTemplates, itemTemplates } from './item-templates.js';
import type { KeepRule, MainContentModel } from './block-model.js';
import { MAIN_CONTENT_MODEL } from './block-model-weights.js';
import { ruleMainContent } from './main-content-rules.js';
import type { MainContent } from './main-content-rules.js';
import type { PageKind } from './page-kind.js';

export type { MainContent };

/** The shipped model, checked against the features on first use (the trainer loads this module to retrain it). */
let shipped: MainContentModel | undefined;
const shippedModel = (): MainContentModel =>
  (shipped ??= {
    blocks: checkModel(MAIN_CONTENT_MODEL.blocks, FEATURE_NAMES),
    context: checkModel(MAIN_CONTENT_MODEL.context, CONTEXT_FEATURES),
    keep: MAIN_CONTENT_MODEL.keep,
  });

/**
 * Which blocks `rule` keeps (1) on a page, from the first stage's probabilities and the final stage's, asked
 * for lazily (`final(only)` scores the blocks `only` marks, or every block). The trainer simulates the service
 * with this same function. When that is much less text than the rules chose, the model is unsure of this page
 * (one unlike any it learned from): its bar is lowered step by step, down to MIN_KEEP_AT, and the caller
 * gives its choice up for the rules' only if even that keeps too little (`enoughKept`).
 */
export function keepBlocks(
  rule: KeepRule,
  page: KeepInputs,
  first: Float32Array,
  final: (only?: Uint8Array) => Float32Array,
): Uint8Array {
  if (rule.mode === 'rules') return page.byRules;
  // Each step asks for the same probabilities (of every block, or of the rules' blocks): scored once.
  const scored = new Map<Uint8Array | undefined, Float32Array>();
  const cached = (only?: Uint8Array): Float32Array => {
    let p = scored.get(only);
    if (!p) scored.set(only, (p = final(only)));
    return p;
  };
  const bar =
    rule.mode === 'model' && rule.relative !== undefined
      ? barOfPage(rule.at, rule.relative, page, cached())
      : rule.at;
  let kept = keepAtRule({ ...rule, at: bar }, page, first, cached);
  for (let at = bar * WIDEN_BY; !enoughKept(kept, page) && at >= MIN_KEEP_AT; at *= WIDEN_BY)
    kept = keepAtRule({ ...rule, at }, page, first, cached);
  if (page.code) keepCodeAfterKept(kept, page.code);
  if (page.templates) fillTemplates(kept, page.templates, page.text);
  return kept;
}

/**
 * A model-mode bar that follows how sure the model is of the page: `relative` times the probability of its
 * surest tenth of text, between RELATIVE_FLOOR and the rule's own `at`. On a page like those it was fitted on
 * the model is sure of the main part and the rule's bar stands; on a page unlike them (a site it never saw) it
 * is less sure of everything, main part and chrome alike, and a fixed bar drops the main part with the chrome.
 * On listings (0.45, relative 0.5), held out by site: collections 0.624 -> 0.642, listings 0.630 -> 0.637,
 * WCXB 0.861 -> 0.863; in-sample collections 0.725 -> 0.733, every other type within 0.001. Products lose
 * in-sample (0.745 -> 0.736 at 0.55, relative 0.7): their truths leave out text the model is half sure of.
 */
function barOfPage(at: number, relative: number, page: KeepInputs, p: Float32Array): number {
  const order = Array.from(p.keys()).sort((a, b) => p[b]! - p[a]!);
  let total = 0;
  for (let i = 0; i < p.length; i++) total += page.text[i]!;
  let seen = 0;
  let surest = 0;
  for (const i of order) {
    seen += page.text[i]!;
    surest = p[i]!;
    if (seen >= total * SUREST_SHARE) break;
  }
  return Math.min(at, Math.max(RELATIVE_FLOOR, relative * surest));
}

/** The share of a page's text whose least probability is "how sure the model is of the page". */
const SUREST_SHARE = 0.1;
/** The lowest bar relative to the page: below it, even on an unsure page, a block is chrome. */
const RELATIVE_FLOOR = 0.2;

/**
 * What keepBlocks reads of a page besides the probabilities: the rules' choice, each block's text length,
 * on forums (codeAfterProse) which blocks are code right after another block of the same parent, and on
 * listings, products and `other` (itemTemplates) each block's place in a repeated item.
 */
export interface KeepInputs {
  byRules: Uint8Array;
  text: ArrayLike<number>;
  code?: Uint8Array;
  templates?: Int32Array;
}

/**
 * A forum post's code block, right after a kept block of the same parent, is kept with it, and so are the code
 * blocks that follow it: the model scores code by its looks, nothing like a post's prose, and drops short
 * snippets. Every WCXB forum page this changes scores higher, held out and in-sample.
 */
function keepCodeAfterKept(kept: Uint8Array, code: Uint8Array): void {
  for (let i = 1; i < kept.length; i++) if (code[i] && kept[i - 1]) kept[i] = 1;
}

/** Enough of the page kept that the model's choice stands: some text, and not much less than the rules'. */
export function enoughKept(kept: Uint8Array, page: KeepInputs): boolean {
  let keptText = 0;
  let ruleText = 0;
  for (let i = 0; i < kept.length; i++) {
    if (kept[i]) keptText += page.text[i]!;
    if (page.byRules[i]) ruleText += page.text[i]!;
  }
  return keptText >= MIN_KEPT_TEXT && keptText >= ruleText * MIN_SHARE_OF_RULES;
}

/** Each step of lowering an unsure model's bar multiplies it by this. */
const WIDEN_BY = 0.8;
/** The lowest bar an unsure model is lowered to. */
const MIN_KEEP_AT = 0.05;

/**
 * The blocks `rule` keeps at its own threshold. In `within-rules` mode the model only takes out of the rules'
 * choice, so only the rules' blocks are scored, and the blocks the first stage is surest of join them; unless
 * the first stage is sure of more text outside that choice than is kept inside it: the rules took the wrong
 * part of the page (a sidebar, a footer form) and the model decides alone.
 */
function keepAtRule(
  rule: KeepRule,
  page: KeepInputs,
  first: Float32Array,
  final: (only?: Uint8Array) => Float32Array,
): Uint8Array {
  const { byRules, text } = page;
  const keepAt = (p: Float32Array, at: number, within: boolean): Uint8Array => {
    // A loop: `Uint8Array.from` with a mapping function goes through the iterator protocol per block.
    const kept = new Uint8Array(p.length);
    for (let i = 0; i < p.length; i++) kept[i] = +(p[i]! >= at && (!within || byRules[i] === 1));
    return kept;
  };
  let kept: Uint8Array;
  if (rule.mode === 'model') kept = keepAt(final(), rule.at, false);
  else {
    kept = keepAt(final(byRules), rule.at, true);
    let inside = 0;
    let outside = 0;
    for (let i = 0; i < kept.length; i++) {
      if (kept[i]) inside += text[i]!;
      else if (!byRules[i] && first[i]! >= SURE_OUTSIDE_RULES) outside += text[i]!;
    }
    if (outside > inside) kept = keepAt(final(), RULES_MISSED_AT, false);
    // Else the rules' choice is the page's main part; what the first stage is surest of outside it joins it
    // (an article's opening paragraphs split from its body by a figure or an advert).
    else for (let i = 0; i < kept.length; i++) if (!byRules[i] && first[i]! >= SURE_TO_ADD) kept[i] = 1;
  }
  return kept;
}

/**
 * A first-stage probability sure enough to say the rules missed a block. Chosen held out (the trainer's
 * cross-validation): 0.8 → 0.7 took WCXB 0.859 → 0.860 with the article set unchanged (0.970); at 0.5 the
 * article set falls to 0.966, the rules' choice given up on articles it had right.
 */
const SURE_OUTSIDE_RULES = 0.7;
/**
 * A first-stage probability sure enough to add a block the rules left out. Held out, 0.9 → 0.85 took WCXB
 * 0.860 → 0.861 and the article set 0.970 → 0.971; 0.8 lowers the article set again (0.969 without reveals).
 */
const SURE_TO_ADD = 0.85;
/** The model's own threshold where the rules missed the main content. */
const RULES_MISSED_AT = 0.5;

/** What main-content detection reads of a page: its text statistics, the rules' choice and the blocks. */
export interface PageAnalysis {
  body: Element;
  stats: StatsTable;
  rules: MainContent | null;
  /** Null on a page of more than MAX_MODEL_BLOCKS blocks: the rules alone decide there. */
  blocks: Blocks | null;
}

/**
 * Pages have about 170 blocks (the article set) and rarely more than a few thousand. Each costs some 80
 * numbers of features, so a hostile page of hundreds of thousands of paragraphs would take hundreds of MB
 * of a content worker: past this many, the model steps aside and the rules (linear, no per-block rows) decide.
 */
export const MAX_MODEL_BLOCKS = 20_000;

/**
 * The page measured once, the rules' choice, and every block with its features (the trainer reads this too).
 * `texts`: each block's text as well; `concealed`: the concealed blocks too (Blocks.concealed), only worth
 * their work where they may be revealed.
 */
export function analysePage(
  doc: Document,
  kind: PageKind,
  want: { texts?: boolean; concealed?: boolean } = {},
): PageAnalysis | null {
  const body = bodyOf(doc);
  if (!isTag(body)) return null;
  const stats = new StatsTable();
  const bodyStats = measure(body, stats, want.concealed ? 'apart' : 'skip');
  const rules = ruleMainContent(doc, body, stats, bodyStats, kind);
  const choice: RuleChoice = rules
    ? { roots: new Set(rules.roots), skip: rules.skip }
    : { roots: new Set([body]), skip: () => false };
  // measure counted the page's blocks (concealed ones measured apart too): every row the features would take.
  const blocks =
    bodyStats.blocks <= MAX_MODEL_BLOCKS ? blockFeatures(body, stats, kind, choice, want.texts) : null;
  return { body, stats, rules, blocks };
}

/**
 * The page's main content: the rules' choice (main-content-rules.ts) refined block by block by a small
 * tree model (block-model.ts) that reads the rules' decision among its features and what kind of page
 * this is, so a product keeps its price and specifications and a thread every post. When the model keeps
 * much less than the rules chose even at its lowered bar (keepBlocks), the rules' choice stands: main
 * content is never empty for a page with text. Null when there is nothing to choose from (callers render the whole page).
 */
export function pickMainContent(
  doc: Document,
  kind: PageKind = 'other',
  model: MainContentModel | null = shippedModel(),
): MainContent | null {
  const main = chooseMainContent(doc, kind, model);
  if (!main) return null;
  // Whatever was chosen, a cookie or consent notice inside it is not content.
  const notices = consentNotices(bodyOf(doc));
  if (notices.size === 0) return main;
  const { skip } = main;
  return { ...main, skip: (el) => notices.has(el) || skip(el) };
}

function chooseMainContent(
  doc: Document,
  kind: PageKind,
  model: MainContentModel | null,
): MainContent | null {
  const keep = model?.keep[kind];
  const page = analysePage(doc, kind, { concealed: keep?.mode === 'model' && keep.reveal !== undefined });
  if (!page?.blocks || !model || !keep || keep.mode === 'rules') return page?.rules ?? null;
  // A short page with nothing article-shaped (a note, a document of a few lines) is its whole self.
  if (!page.rules && (page.stats.get(page.body)?.text ?? 0) < SHORT_PAGE_TEXT) return null;
  const { blocks, stats, body } = page;
  const byRules = new Uint8Array(blocks.elements.length);
  for (let i = 0; i < byRules.length; i++) byRules[i] = +ruleKept(blocks, i);
  const text = blocks.elements.map((el) => stats.get(el)!.ownText);
  const inputs: KeepInputs = {
    byRules,
    text,
    code: codeAfterProse(kind, blocks.features),
    templates: itemTemplates(kind, blocks.elements),
  };
  const first = predict(model.blocks, blocks.features);
  const context = contextFeatures(blocks.features, containersOf(blocks.elements), first);
  const keptRows = keepBlocks(keep, inputs, first, (only) => predict(model.context, context, only));
  if (!enoughKept(keptRows, inputs)) return page.rules;
  const kept = new Set<Element>();
  blocks.elements.forEach((el, i) => {
    if (keptRows[i]) kept.add(el);
  });
  // Where the model alone decides, it may reveal blocks the author collapsed (a product's specifications, a
  // service's answers in an accordion); within the rules' choice never (an article's hidden copy of itself).
  if (keep.mode === 'model' && keep.reveal !== undefined)
    for (const el of keptConcealed(model, blocks.concealed, keep.reveal)) kept.add(el);
  const { skip: keptOnly, holds } = keptBlocksOnly(kept, stats);
  // As with the rules alone: the headline that repeats <title> is metadata.title, not the content's start.
  const headline = page.rules?.headline;
  const reveal = new Set<Element>();
  for (const el of holds) if (isConcealed(el)) reveal.add(el);
  const blockByBlock = keep.mode === 'model';
  const never = NEVER_MAIN[kind];
  const skip = never
    ? (el: Element): boolean =>
        el === headline ||
        keptOnly(el) ||
        ((el.attribs.class !== undefined || el.attribs.id !== undefined) && never.test(classAndId(el)))
    : (el: Element): boolean => el === headline || keptOnly(el);
  return { roots: [body], skip, headline, reveal, blockByBlock };
}

/** The concealed blocks the model keeps at `at`, scored as if shown (block-features.ts). */
function keptConcealed(model: MainContentModel, rows: BlockRows, at: number): Element[] {
  if (rows.elements.length === 0) return [];
  const first = predict(model.blocks, rows.features);
  const final = predict(model.context, contextFeatures(rows.features, containersOf(rows.elements), first));
  return rows.elements.filter((_, i) => final[i]! >= at);
}

/**
 * What a kind of page never counts as main content, whatever the model says (it has no feature for these
 * words): a forum post's signature, which repeats under every post of its author.
 */
const NEVER_MAIN: Partial<Record<PageKind, RegExp>> = { forum: /(^|[\s_-])signature([\s_-]|$)/i };

/** A page with less visible text than this, and nothing the rules call an article, is rendered whole. */
const SHORT_PAGE_TEXT = 1000;
/** Fewer kept characters than this is the model finding nothing, not a page of nothing. */
const MIN_KEPT_TEXT = 25;
/** The model's choice holding less than this share of the rules' text is a miss: the rules decide. */
const MIN_SHARE_OF_RULES = 0.1;

/**
 * Leaves out every element with text but no kept block at or below it. Inline elements (links, emphasis)
 * follow the block whose text they are part of. Text-less elements (images, rules) inside what is kept stay.
 * `holds`: the kept blocks and every element above one.
 */
function keptBlocksOnly(
  kept: Set<Element>,
  stats: StatsTable,
): { skip: (el: Element) => boolean; holds: Set<Element> } {
  const holds = new Set<Element>();
  for (const el of kept) {
    for (let p: Element | null = el; p && !holds.has(p); p = parentElement(p)) holds.add(p);
  }
  const inlineKept = new Map<Element, boolean>();
  const ownerKept = (el: Element): boolean => {
    const parent = el.parent;
    if (!parent || !isTag(parent)) return false;
    if (isBlockElement(parent)) return kept.has(parent);
    let known = inlineKept.get(parent);
    if (known === undefined) inlineKept.set(parent, (known = ownerKept(parent)));
    return known;
  };
  const skip = (el: Element): boolean => {
    if (holds.has(el) || (stats.get(el)?.text ?? 0) === 0) return false;
    return isBlockElement(el) || !ownerKept(el);
  };
  return { skip, holds };
}
