import type { AnyNode, Element } from './parse/dom.js';
import { allElements } from './parse/dom.js';
import { absoluteUrl } from './parse/urls.js';

const PLACEHOLDER = /^data:image\/(?:gif|png|svg\+xml)[;,]/i;
const LAZY_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original', 'data-url', 'data-lazy'];

/**
 * The URL an <img> really shows: lazy-loading attributes win over a placeholder src.
 * Returns the raw attribute value (not yet resolved).
 */
export function imageSource(img: Element): string | undefined {
  const src = img.attribs.src?.trim();
  const lazy = LAZY_ATTRIBUTES.map((name) => img.attribs[name]?.trim()).find((v) => v);
  if (lazy && (!src || PLACEHOLDER.test(src))) return lazy;
  if (src) return src;
  const srcset = img.attribs.srcset ?? img.attribs['data-srcset'];
  return srcset?.trim().split(/\s+/)[0];
}

export function isDataUri(src: string): boolean {
  return /^\s*data:/i.test(src);
}

/** Absolute URLs of every image on the page, first occurrence order, deduplicated. */
export function collectImages(root: AnyNode, base: URL, removeBase64Images: boolean): string[] {
  const seen = new Set<string>();
  for (const el of allElements(root)) {
    if (el.name !== 'img') continue;
    const src = imageSource(el);
    if (!src || (removeBase64Images && isDataUri(src))) continue;
    const url = isDataUri(src) ? src.trim() : absoluteUrl(src, base);
    if (url) seen.add(url);
  }
  return [...seen];
}
