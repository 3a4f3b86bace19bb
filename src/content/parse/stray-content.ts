import type { ChildNode, Document, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { setChildren } from './tree-edit.js';

/** What the WHATWG "after head" mode still puts in `<head>`: anything else between head and body is body. */
const HEAD_ELEMENTS = new Set(['base', 'link', 'meta', 'noscript', 'script', 'style', 'template', 'title']);

const isContent = (node: ChildNode): boolean =>
  isTag(node) || (node.type === 'text' && node.data.trim() !== '');

/**
 * htmlparser2 builds the tree the tags spell; a browser builds the one WHATWG prescribes. Where they differ
 * on a page's own content: an early `</body>` or `</html>` (a template that closes the page and goes on,
 * a plugin that prints after it) leaves the rest of the page beside `<body>` or beside `<html>`, outside
 * everything that reads the body; and content between `</head>` and `<body>` is the body's start. A browser
 * puts all of it in the body ("after body" and "after head" modes), and so does this, in document order.
 * Comments and white space stay where they are. One pass over the top two levels of the tree.
 */
export function adoptStrayContent(doc: Document): void {
  // A page without an <html> tag has its head and body at the top of the tree.
  const html: Document | Element =
    doc.children.find((node): node is Element => isTag(node) && node.name === 'html') ?? doc;
  const body = html.children.find((node): node is Element => isTag(node) && node.name === 'body');
  if (!body) return;
  const at = html.children.indexOf(body);
  const before = html.children
    .slice(0, at)
    .filter(
      (node) => isContent(node) && !(isTag(node) && (node.name === 'head' || HEAD_ELEMENTS.has(node.name))),
    );
  const after = html.children.slice(at + 1).filter(isContent);
  if (html !== doc) after.push(...doc.children.slice(doc.children.indexOf(html) + 1).filter(isContent));
  if (before.length === 0 && after.length === 0) return;
  const moved = new Set([...before, ...after]);
  for (const parent of new Set([html, doc]))
    setChildren(
      parent,
      parent.children.filter((node) => !moved.has(node)),
    );
  setChildren(body, [...before, ...body.children, ...after]);
}
