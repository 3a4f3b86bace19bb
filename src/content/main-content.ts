import type { AnyNode, Document, Element } from './parse.js';
import { bodyOf, isTag } from './parse.js';
import { visibleLength } from './page-signals.js';
import { isInvisible } from './visibility.js';

/** The article part of a page: the subtrees to render and the boilerplate inside them to leave out. */
export interface MainContent {
  roots: Element[];
  skip: (el: Element) => boolean;
}

interface Stats {
  /** Characters of visible text (white space collapsed). */
  text: number;
  /** Characters of visible text inside links. */
  linkText: number;
  commas: number;
}

const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'footer', 'button', 'form', 'menu']);
const BOILERPLATE_ROLES = new Set(['navigation', 'complementary', 'contentinfo', 'banner', 'menu', 'search']);
const NEGATIVE =
  /(^|[\s_-])(comment|comments|meta|footer|footnote-back|masthead|sidebar|sponsor|shopping|tags?|tool|widget|related|recommend|share|sharing|social|promo|advert|ads?|banner|breadcrumbs?|cookie|consent|newsletter|subscribe|signup|popup|modal|nav|navbar|navigation|menu|pagination|pager|byline-share|author-bio|outbrain|taboola|disqus|rating|print|skip)([\s_-]|$)/i;
const POSITIVE =
  /(^|[\s_-])(article|body|content|entry|hentry|h-entry|main|page|post|text|blog|story|prose|markdown|rich-?text)([\s_-]|$)/i;
const SCORABLE = new Set(['p', 'pre', 'td', 'blockquote', 'li', 'dd', 'h2', 'h3', 'section', 'div']);

function classAndId(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

function classWeight(el: Element): number {
  const names = classAndId(el);
  let weight = 0;
  if (NEGATIVE.test(names)) weight -= 25;
  if (POSITIVE.test(names)) weight += 25;
  if (el.name === 'article' || el.name === 'main' || el.attribs.itemprop === 'articleBody') weight += 30;
  return weight;
}

/** Computes text statistics for every element in one bottom-up pass. */
function measure(root: AnyNode, stats: Map<Element, Stats>): Stats {
  const total: Stats = { text: 0, linkText: 0, commas: 0 };
  if (!('children' in root)) return total;
  for (const child of root.children) {
    if (child.type === 'text') {
      const text = child.data;
      total.text += visibleLength(text);
      for (let i = text.indexOf(','); i !== -1; i = text.indexOf(',', i + 1)) total.commas++;
      for (let i = text.indexOf('，'); i !== -1; i = text.indexOf('，', i + 1)) total.commas++;
    } else if (isTag(child)) {
      if (isInvisible(child)) continue;
      const sub = measure(child, stats);
      total.text += sub.text;
      total.commas += sub.commas;
      total.linkText += child.name === 'a' ? sub.text : sub.linkText;
    }
  }
  if (isTag(root)) stats.set(root, total);
  return total;
}

function linkDensity(stats: Stats | undefined): number {
  return stats && stats.text > 0 ? stats.linkText / stats.text : 0;
}

/** Boilerplate inside the chosen content: navigation, sharing widgets, link farms, forms. */
function isBoilerplate(el: Element, stats: Map<Element, Stats>): boolean {
  if (BOILERPLATE_TAGS.has(el.name)) return true;
  const role = el.attribs.role;
  if (role && BOILERPLATE_ROLES.has(role)) return true;
  const s = stats.get(el);
  const density = linkDensity(s);
  if (NEGATIVE.test(classAndId(el)) && !POSITIVE.test(classAndId(el))) {
    return (s?.text ?? 0) < 1000 || density > 0.3;
  }
  if (el.name === 'ul' || el.name === 'ol' || el.name === 'div' || el.name === 'section') {
    return density > 0.6 && (s?.text ?? 0) < 2000;
  }
  return false;
}

/**
 * Readability-style main-content detection over the shared tree: paragraphs score their ancestors
 * (by text length and commas, damped by link density and class hints), the best ancestor wins,
 * and siblings that look like continuation of the article join it. Returns null when nothing
 * article-shaped is found, so callers fall back to the whole page.
 */
export function pickMainContent(doc: Document): MainContent | null {
  const body = bodyOf(doc);
  const stats = new Map<Element, Stats>();
  const bodyStats = measure(body, stats);
  const scores = new Map<Element, number>();

  const addScore = (el: Element, amount: number): void => {
    if (!scores.has(el)) scores.set(el, classWeight(el) + tagBase(el));
    scores.set(el, scores.get(el)! + amount);
  };
  const visit = (node: AnyNode, insideBoilerplate: boolean): void => {
    if (!('children' in node)) return;
    for (const child of node.children) {
      if (!isTag(child) || isInvisible(child)) continue;
      const boiler = insideBoilerplate || isBoilerplate(child, stats);
      if (!boiler && SCORABLE.has(child.name)) scoreParagraph(child, stats, addScore);
      visit(child, boiler);
    }
  };
  visit(body, false);

  let top: Element | null = null;
  let topScore = -Infinity;
  for (const [el, raw] of scores) {
    const score = raw * (1 - linkDensity(stats.get(el)));
    scores.set(el, score);
    if (score > topScore) {
      top = el;
      topScore = score;
    }
  }
  if (!top || (stats.get(top)?.text ?? 0) < Math.min(250, bodyStats.text * 0.5)) return null;

  const roots = withSiblings(top, topScore, scores, stats);
  return { roots, skip: (el) => isBoilerplate(el, stats) };
}

function tagBase(el: Element): number {
  switch (el.name) {
    case 'article':
    case 'main':
    case 'div':
      return 5;
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3;
    case 'ol':
    case 'ul':
    case 'dl':
    case 'li':
    case 'form':
      return -3;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'th':
      return -5;
    default:
      return 0;
  }
}

function scoreParagraph(
  el: Element,
  stats: Map<Element, Stats>,
  addScore: (el: Element, amount: number) => void,
): void {
  if ((el.name === 'div' || el.name === 'section' || el.name === 'li') && hasBlockChild(el)) return;
  const s = stats.get(el);
  if (!s || s.text < 25) return;
  const score = 1 + s.commas + Math.min(Math.floor(s.text / 100), 3);
  let ancestor = el.parent;
  for (let level = 0; ancestor && isTag(ancestor) && level < 5; level++) {
    addScore(ancestor, score / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
    ancestor = ancestor.parent;
  }
}

const BLOCK_CHILDREN = new Set(['p', 'div', 'section', 'article', 'table', 'ul', 'ol', 'pre', 'blockquote']);

function hasBlockChild(el: Element): boolean {
  return el.children.some((c) => isTag(c) && BLOCK_CHILDREN.has(c.name));
}

/** The top candidate plus siblings that score close to it or read like article paragraphs. */
function withSiblings(
  top: Element,
  topScore: number,
  scores: Map<Element, number>,
  stats: Map<Element, Stats>,
): Element[] {
  const parent = top.parent;
  if (!parent || !isTag(parent)) return [top];
  const threshold = Math.max(10, topScore * 0.2);
  const roots: Element[] = [];
  for (const sibling of parent.children) {
    if (!isTag(sibling) || isInvisible(sibling)) continue;
    if (sibling === top) {
      roots.push(sibling);
      continue;
    }
    const score = scores.get(sibling) ?? 0;
    const s = stats.get(sibling);
    const bonus = classAndId(sibling) !== ' ' && classAndId(sibling) === classAndId(top) ? topScore * 0.2 : 0;
    if (score + bonus >= threshold) roots.push(sibling);
    else if (sibling.name === 'p' && s && s.text > 80 && linkDensity(s) < 0.25) roots.push(sibling);
  }
  return roots;
}
