import type { ChildNode, ParentNode } from 'domhandler';

/**
 * The few tree edits parsing makes to render what a browser would show (shadow roots, streamed React
 * segments). Every other step reads the tree and none changes it.
 */

/** Sets `parent`'s children to `nodes`, fixing every link, in one pass. */
export function setChildren(parent: ParentNode, nodes: ChildNode[]): void {
  parent.children = nodes;
  nodes.forEach((node, i) => {
    node.parent = parent;
    node.prev = nodes[i - 1] ?? null;
    node.next = nodes[i + 1] ?? null;
  });
}

/** Takes `node` out of its parent (a no-op for a node without one). */
export function detach(node: ChildNode): void {
  const parent = node.parent;
  if (!parent) return;
  setChildren(
    parent,
    parent.children.filter((child) => child !== node),
  );
  node.parent = node.prev = node.next = null;
}
