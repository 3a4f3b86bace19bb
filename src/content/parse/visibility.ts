import type { Element } from './dom.js';
import { isNeverContent } from './elements.js';
import type { KindedElement } from './elements.js';

/** Hidden by its author: the `hidden` attribute, or `display:none` / `visibility:hidden` in its style. */
export function isHiddenByAuthor(attribs: Record<string, string>): boolean {
  return 'hidden' in attribs || (attribs.style !== undefined && HIDING_STYLE.test(attribs.style));
}

const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/**
 * Hidden by its author (or from assistive technology), though its text is in the page: collapsed accordions,
 * inactive tabs, closed menus and dialogs, duplicated carousel slides. Left out of the page's visible text;
 * main content may still reveal such a block (main-content.ts), since a product's specifications or a
 * service's FAQ answers are often collapsed until clicked.
 */
export function isConcealed(el: Element): boolean {
  // Every step asks of every element it walks; the answer is kept on the element (dom-nodes.ts) once known.
  const known = (el as Partial<KindedElement>).concealed;
  if (known !== undefined && known !== -1) return known === 1;
  const attribs = el.attribs;
  const answer =
    (attribs['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') ||
    isHiddenByAuthor(attribs);
  if (known === -1) (el as KindedElement).concealed = answer ? 1 : 0;
  return answer;
}

/** Forgets what isConcealed found of `el`: for the one step that changes an element's attributes. */
export function forgetConcealed(el: Element): void {
  if ((el as Partial<KindedElement>).concealed !== undefined) (el as KindedElement).concealed = -1;
}

/** True for elements a reader never sees: non-content tags and hidden markup. */
export function isInvisible(el: Element): boolean {
  return isNeverContent(el) || isConcealed(el);
}

/** A dialog: role dialog or alertdialog, or aria-modal (sign-in forms, notices, a video's modal). */
export function isDialog(el: Element): boolean {
  const role = el.attribs.role;
  return role === 'dialog' || role === 'alertdialog' || el.attribs['aria-modal'] === 'true';
}
