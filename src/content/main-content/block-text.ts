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

/** Each ASCII code's class for shares: 1 a digit, 2 a lower-case letter, 6 an upper-case one (2 | 4). */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = 1;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = 2;
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = 6;

/**
 * Characters of a string that are digits / upper-case letters, for short own texts only (bounded). ASCII is
 * counted from a table without a branch per character: prose alternates letters, spaces and punctuation in
 * no order a processor predicts.
 */
export function shares(text: string): [number, number] {
  const length = Math.min(text.length, 400);
  let digits = 0;
  let upper = 0;
  let letters = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      const kind = ASCII_CLASS[code]!;
      digits += kind & 1;
      letters += (kind >> 1) & 1;
      upper += kind >> 2;
    } else {
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

/**
 * Whether text ends a sentence: `[.!?:;。！？]["')\]]?$` read from the end, where the regex would try each
 * position of a paragraph from its start.
 */
export function endsSentence(text: string): boolean {
  let last = text.length - 1;
  const closer = text.charCodeAt(last);
  if (closer === 0x22 || closer === 0x27 || closer === 0x29 || closer === 0x5d) last--;
  switch (text.charCodeAt(last)) {
    case 0x2e: // .
    case 0x21: // !
    case 0x3f: // ?
    case 0x3a: // :
    case 0x3b: // ;
    case 0x3002: // 。
    case 0xff01: // ！
    case 0xff1f: // ？
      return true;
    default:
      return false;
  }
}
