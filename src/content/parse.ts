import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element } from 'domhandler';
import { isTag } from 'domhandler';

export type { AnyNode, Document, Element };
export { isTag };

/** Parses a page once; every other content step reads this tree and none mutates it. */
export function parseHtml(html: string): Document {
  return parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
}

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

/** The element that holds the page's visible content: <body>, else the document itself. */
export function bodyOf(doc: Document): AnyNode {
  return findFirst(doc, 'body') ?? doc;
}

/** Text of a subtree with whitespace collapsed; skips script/style/template content. */
export function textOf(node: AnyNode): string {
  const parts: string[] = [];
  const walk = (n: AnyNode): void => {
    if (n.type === 'text') parts.push(n.data);
    else if (isTag(n)) {
      if (NON_TEXT_TAGS.has(n.name)) return;
      for (const child of n.children) walk(child);
    } else if ('children' in n) for (const child of n.children) walk(child);
  };
  walk(node);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

export const NON_TEXT_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'head']);

export interface TreeLimits {
  maxDepth: number;
  maxNodes: number;
}

/** Depth and node count of a tree, walked without recursion; stops counting once a limit is passed. */
export function exceedsLimits(root: AnyNode, limits: TreeLimits): 'depth' | 'nodes' | null {
  const stack: [AnyNode, number][] = [[root, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (++nodes > limits.maxNodes) return 'nodes';
    if (depth > limits.maxDepth) return 'depth';
    if ('children' in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
  return null;
}
