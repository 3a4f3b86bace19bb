import type { Element } from './dom.js';

/** Elements that start a new block of text; everything else (a, span, b, em...) is phrasing content. */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'details',
  'dialog',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Elements that never carry readable page content. */
export const NEVER_CONTENT: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'canvas',
  'svg',
  'math',
  'input',
  'select',
  'option',
  'textarea',
  'datalist',
  'dialog',
]);

/**
 * What an element's tag name is, as bits: given to each element once as the parser makes it (dom-nodes.ts),
 * so that the steps that ask at every element of every page (block or phrasing, content or not) read a field
 * instead of looking the name up in a set each time.
 */
const BLOCK_TAG = 1;
const NEVER_CONTENT_TAG = 2;
const KINDS = new Map<string, number>();
for (const name of BLOCK_ELEMENTS) KINDS.set(name, BLOCK_TAG);
for (const name of NEVER_CONTENT) KINDS.set(name, (KINDS.get(name) ?? 0) | NEVER_CONTENT_TAG);

/** The bits of a tag name (0: phrasing content, readable). */
export const tagKindOf = (name: string): number => KINDS.get(name) ?? 0;

/** An element as dom-nodes.ts makes it: with its tag's bits, and room for what visibility.ts finds of it. */
export interface KindedElement extends Element {
  tagKind: number;
  /** Whether its author hid it (visibility.ts, isConcealed): -1 until first asked. */
  concealed: number;
  /** The table of text statistics that last measured it, and its row there (main-content/block-stats.ts). */
  measuredBy: object | null;
  measured: unknown;
}

/** The bits of `el`'s tag: those the parser gave it, or looked up for an element made by other code. */
function tagKind(el: Element): number {
  const given = (el as Partial<KindedElement>).tagKind;
  return given === undefined ? tagKindOf(el.name) : given;
}

/** `el` starts a block of text (BLOCK_ELEMENTS). */
export const isBlockElement = (el: Element): boolean => (tagKind(el) & BLOCK_TAG) !== 0;

/** `el` never carries readable page content (NEVER_CONTENT). */
export const isNeverContent = (el: Element): boolean => (tagKind(el) & NEVER_CONTENT_TAG) !== 0;
