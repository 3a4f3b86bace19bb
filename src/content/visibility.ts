import type { Element } from './parse.js';

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

/** True for elements a reader never sees: non-content tags and hidden markup. */
export function isInvisible(el: Element): boolean {
  if (NEVER_CONTENT.has(el.name)) return true;
  const attribs = el.attribs;
  if (attribs['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') return true;
  return isHiddenByAuthor(attribs);
}
