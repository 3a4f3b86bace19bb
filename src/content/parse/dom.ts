import type { AnyNode, Document, Element } from 'domhandler';
import { isTag } from 'domhandler';

/** The page's tree as the parser builds it, and the queries every content step reads it with. */
export type { AnyNode, Document, Element };
export { isTag };

/** Depth-first search for the first element with this tag name. */
export function findFirst(root: AnyNode, name: string): Element | null {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && node.name === name) return node;
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return null;
}

/** All elements below root, in document order. */
export function allElements(root: AnyNode): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && node !== root) out.push(node);
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return out;
}

/** The raw text of an element whose content is text only (`<script>`, `<style>`, `<title>`): its data as is. */
export const rawTextOf = (el: Element): string =>
  el.children.map((c) => ('data' in c ? c.data : '')).join('');

/** The element an element sits in, or null at the top of the tree. */
export const parentElement = (el: Element): Element | null =>
  el.parent && isTag(el.parent) ? el.parent : null;

/** The element that holds the page's visible content: <body>, else the document itself. */
export function bodyOf(doc: Document): AnyNode {
  return findFirst(doc, 'body') ?? doc;
}

/** Text of a subtree with whitespace collapsed; skips script/style/template content. */
export function textOf(node: AnyNode): string {
  return collapseWhiteSpace(textBelow(node)).trim();
}

/** The text nodes' data joined (a lone text node's is answered as it is, the common case of a link). */
function textBelow(n: AnyNode): string {
  if (n.type === 'text') return n.data;
  if ((isTag(n) && NON_TEXT_TAGS.has(n.name)) || !('children' in n)) return '';
  let out = '';
  for (const child of n.children) out += textBelow(child);
  return out;
}

export const NON_TEXT_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'head']);

/**
 * Each run of white space as one space. Most text already has single spaces only, and is answered as it is
 * instead of copied.
 */
export function collapseWhiteSpace(text: string): string {
  return UNCOLLAPSED.test(text) ? text.replace(/\s+/g, ' ') : text;
}

/**
 * White space other than one plain space between words: a `\s` character that is not a plain space, or two
 * plain spaces. `\s` spelled out as a class: V8 scans it a quarter faster than `\s\s|[^\S ]` over prose.
 */
const UNCOLLAPSED = /[\t-\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]| {2}/;
