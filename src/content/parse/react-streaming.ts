import type { Element } from 'domhandler';
import { rawTextOf } from './dom.js';
import { setChildren, detach } from './tree-edit.js';

/**
 * React's streaming server rendering sends a page in parts: where a part is not ready, a fallback (a
 * spinner, a skeleton) between `<!--$?-->` and `<!--/$-->` with a `<template id="B:n">`; later, the finished
 * part as `<div hidden id="S:n">` at the end of the body, and an inline script `$RC("B:n","S:n")` (or `$RR`,
 * once its stylesheets load) that moves it
 * into place (`$RS("S:n","P:m")` does the same for a placeholder `<template id="P:m">`). A browser runs those
 * calls; a scraper that reads no script sees skeletons and hidden parts, often the whole article hidden.
 * This applies the calls found in the page's inline scripts, in order, as React's own runtime does.
 */

/** An element id of React's streaming: a boundary (B:), a segment (S:) or a placeholder (P:). */
export const isStreamingId = (id: string | undefined): boolean =>
  id !== undefined && id.length > 2 && id.length <= 64 && id[1] === ':' && 'BSP'.includes(id[0]!);

const CALL = /\$R([CSR])\("([^"\\]{1,64})","([^"\\]{1,64})"(\)|,)/g;
/**
 * Each call costs a pass over the children of the segment's and the boundary's parents: past this many
 * children passed over in all (a hostile page of thousands of calls on a wide parent), the rest are not
 * applied, so the work stays linear in the page.
 */
const MAX_CHILDREN_VISITED = 2_000_000;

/** Children of the parents a call rewrites: what applying it costs. */
const costOf = (...elements: (Element | undefined)[]): number =>
  elements.reduce((sum, el) => sum + (el?.parent?.children.length ?? 0), 0);

/** The comments that open and close a Suspense boundary. */
const OPENS = new Set(['$', '$?', '$!']);

function completeBoundary(boundary: Element | undefined, segment: Element, failed: boolean): void {
  detach(segment);
  const start = boundary?.prev;
  const parent = boundary?.parent;
  if (!start || !parent || start.type !== 'comment' || failed) return;
  // Everything from the opening comment to its matching `<!--/$-->` is the fallback (nested boundaries counted).
  const kids = parent.children;
  const from = kids.indexOf(start) + 1;
  let to = from;
  for (let depth = 0; to < kids.length; to++) {
    const node = kids[to]!;
    if (node.type !== 'comment') continue;
    if (node.data === '/$') {
      if (depth === 0) break;
      depth--;
    } else if (OPENS.has(node.data)) depth++;
  }
  setChildren(parent, [...kids.slice(0, from), ...segment.children, ...kids.slice(to)]);
  start.data = '$';
}

function completeSegment(segment: Element, placeholder: Element | undefined): void {
  detach(segment);
  const parent = placeholder?.parent;
  if (!placeholder || !parent) return;
  setChildren(
    parent,
    parent.children.flatMap((child) => (child === placeholder ? segment.children : [child])),
  );
}

/** Applies the `$RC`/`$RS` calls of `scripts` to the elements of React's streaming ids (`byId`). */
export function applyStreamedParts(byId: Map<string, Element>, scripts: Element[]): void {
  let visited = 0;
  for (const script of scripts) {
    const text = rawTextOf(script);
    if (!text.includes('$R')) continue;
    for (const [, kind, first, second, end] of text.matchAll(CALL)) {
      // $RS(segment, placeholder); $RC(boundary, segment[, error digest]); $RR(boundary, segment, stylesheets).
      const segment = byId.get(kind === 'S' ? first! : second!);
      const target = byId.get(kind === 'S' ? second! : first!);
      visited += costOf(segment, target);
      if (visited > MAX_CHILDREN_VISITED) return;
      if (!segment?.parent) continue;
      if (kind === 'S') completeSegment(segment, target);
      else completeBoundary(target, segment, kind === 'C' && end === ',');
    }
  }
}
