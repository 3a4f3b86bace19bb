import type { AnyNode, Element } from '../parse/dom.js';
import { collapseWhiteSpace, isTag } from '../parse/dom.js';
import { isBlockElement } from '../parse/elements.js';
import { isInvisible } from '../parse/visibility.js';

/** The block's own text: direct text and inline descendants (training labels read it). */
export function ownTextOf(el: Element): string {
  let text = '';
  for (const child of el.children) text += ownTextBelow(child);
  return collapseWhiteSpace(text).trim();
}

function ownTextBelow(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (!isTag(node) || isInvisible(node) || isBlockElement(node)) return '';
  let text = '';
  for (const child of node.children) text += ownTextBelow(child);
  return text;
}

/** Characters of a string that are digits / upper-case letters, for short own texts only (bounded). */
export function shares(text: string): [number, number] {
  const length = Math.min(text.length, 400);
  let digits = 0;
  let upper = 0;
  let letters = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
    else if (code >= 65 && code <= 90) {
      letters++;
      upper++;
    } else if (code >= 97 && code <= 122) letters++;
    else if (code > 127) {
      // Any script with case (Latin, Greek, Cyrillic...): a letter whose lower and upper forms differ.
      const c = text[i]!;
      const lower = c.toLowerCase();
      if (lower !== c.toUpperCase()) {
        letters++;
        if (c !== lower) upper++;
      }
    }
  }
  return [length > 0 ? digits / length : 0, letters > 0 ? upper / letters : 0];
}
