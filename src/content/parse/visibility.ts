import type { Element } from './dom.js';

/** Elements that never carry readable page content. */
export const NEVER_CONTENT = new Set([
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
  const attribs = el.attribs;
  if (attribs['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') return true;
  return isHiddenByAuthor(attribs);
}

/** True for elements a reader never sees: non-content tags and hidden markup. */
export function isInvisible(el: Element): boolean {
  return NEVER_CONTENT.has(el.name) || isConcealed(el);
}

/** A dialog: role dialog or alertdialog, or aria-modal (sign-in forms, notices, a video's modal). */
export function isDialog(el: Element): boolean {
  const role = el.attribs.role;
  return role === 'dialog' || role === 'alertdialog' || el.attribs['aria-modal'] === 'true';
}
