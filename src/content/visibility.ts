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

/**
 * A declarative shadow root (`<template shadowrootmode="open">`): the browser renders its content in place of
 * the template, so it is page content, unlike any other template.
 */
export const isShadowRoot = (el: Element): boolean =>
  el.name === 'template' && ('shadowrootmode' in el.attribs || 'shadowroot' in el.attribs);

/** True for elements a reader never sees: non-content tags and hidden markup. */
export function isInvisible(el: Element): boolean {
  if (NEVER_CONTENT.has(el.name) && !isShadowRoot(el)) return true;
  const attribs = el.attribs;
  if ('hidden' in attribs) return true;
  if (attribs['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') return true;
  const style = attribs.style;
  return style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}
