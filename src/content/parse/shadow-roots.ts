import type { AnyNode, ChildNode, Element, ParentNode } from 'domhandler';
import { isTag } from 'domhandler';
import { setChildren } from './tree-edit.js';

/**
 * Marks an element whose shadow root was rendered into it (here, or by the browser engine's capture): a
 * component, which main-content detection reads as a block container whatever its tag.
 */
export const SHADOW_HOST_ATTRIBUTE = 'data-pagewright-shadow-host';

/** A declarative shadow root: `<template shadowrootmode="open|closed">` (or the older `shadowroot`). */
export const isShadowTemplate = (name: string, attribs: Record<string, string>): boolean =>
  name === 'template' && ('shadowrootmode' in attribs || 'shadowroot' in attribs);

/** The slots of one shadow tree: below its template, not inside a nested shadow root (those have their own). */
function slotsOf(template: Element): Element[] {
  const slots: Element[] = [];
  const stack: AnyNode[] = [...template.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    if (node.name === 'slot') slots.push(node);
    else if (!isShadowTemplate(node.name, node.attribs))
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return slots;
}

/**
 * Renders a declarative shadow root into the tree as a browser shows it: the host's content becomes the
 * shadow tree, each slot replaced by the host's children assigned to it (by their `slot` attribute; text and
 * unnamed elements to the default slot) or by its fallback content, and children assigned to no slot are
 * not shown. Linear in the nodes moved.
 */
export function flattenShadowRoot(template: Element): void {
  const host = template.parent;
  if (!host || !isTag(host as AnyNode)) return;
  const assigned = new Map<string, ChildNode[]>();
  for (const node of host.children) {
    if (node === template) continue;
    const name = isTag(node) ? (node.attribs.slot ?? '') : node.type === 'text' ? '' : null;
    if (name === null) continue;
    const list = assigned.get(name);
    if (list) list.push(node);
    else assigned.set(name, [node]);
  }
  const replacements = new Map<ChildNode, ChildNode[]>();
  for (const slot of slotsOf(template)) {
    const name = slot.attribs.name ?? '';
    const nodes = assigned.get(name);
    // A name's nodes go to the first slot of that name; later ones show their fallback.
    assigned.delete(name);
    replacements.set(slot, nodes ?? slot.children);
  }
  const parents = new Set([...replacements.keys()].map((slot) => slot.parent!));
  for (const parent of parents) {
    setChildren(
      parent,
      parent.children.flatMap((child) => replacements.get(child) ?? [child]),
    );
  }
  setChildren(host as ParentNode, template.children);
  (host as Element).attribs[SHADOW_HOST_ATTRIBUTE] = '';
}
