import type { AnyNode } from './parse/dom.js';
import { allElements } from './parse/dom.js';
import { absoluteUrl } from './parse/urls.js';

/**
 * Absolute http(s) URLs of every <a href> on the page, first occurrence order, deduplicated.
 * In-page anchors (href="#...") and non-web schemes (mailto:, tel:, javascript:) are left out.
 */
export function collectLinks(root: AnyNode, base: URL): string[] {
  const seen = new Set<string>();
  for (const el of allElements(root)) {
    if (el.name !== 'a' && el.name !== 'area') continue;
    const href = el.attribs.href?.trim();
    if (!href || href.startsWith('#')) continue;
    const url = absoluteUrl(href, base);
    if (url && (url.startsWith('http://') || url.startsWith('https://'))) seen.add(url);
  }
  return [...seen];
}
