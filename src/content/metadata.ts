import type { Document, Element } from './parse/dom.js';
import { allElements, findFirst, textOf } from './parse/dom.js';
import { absoluteUrl } from './parse/urls.js';

/** What the page says about itself in <head> and <html>. */
export interface HeadMetadata {
  title: string;
  description: string;
  language: string | null;
  keywords: string | null;
  robots: string | null;
  ogTitle: string | null;
  ogDescription: string | null;
  ogUrl: string | null;
  ogImage: string | null;
  canonicalUrl: string | null;
  /** <base href> resolved against the page URL; relative URLs resolve against this. */
  base: URL;
}

function clean(value: string | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

export function readMetadata(doc: Document, pageUrl: URL): HeadMetadata {
  const meta = new Map<string, string>();
  let canonical: string | undefined;
  let baseHref: string | undefined;
  let titleElement: Element | null = null;
  for (const el of allElements(findFirst(doc, 'head') ?? doc)) {
    if (el.name === 'meta') {
      const key = (el.attribs.property ?? el.attribs.name ?? el.attribs['http-equiv'] ?? '').toLowerCase();
      const content = el.attribs.content;
      if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
    } else if (el.name === 'link' && canonical === undefined) {
      const rel = (el.attribs.rel ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('canonical')) canonical = el.attribs.href;
    } else if (el.name === 'base' && baseHref === undefined) {
      baseHref = el.attribs.href;
    } else if (el.name === 'title' && titleElement === null) {
      titleElement = el;
    }
  }
  titleElement ??= findFirst(doc, 'title');
  const base = new URL(absoluteUrl(baseHref, pageUrl) ?? pageUrl.href);
  const html = findFirst(doc, 'html');
  const title =
    clean(titleElement ? textOf(titleElement) : undefined) ??
    clean(meta.get('og:title')) ??
    clean(meta.get('twitter:title')) ??
    '';
  return {
    title,
    description:
      clean(meta.get('description')) ??
      clean(meta.get('og:description')) ??
      clean(meta.get('twitter:description')) ??
      '',
    language: clean(html?.attribs.lang ?? html?.attribs['xml:lang']) ?? clean(meta.get('content-language')),
    keywords: clean(meta.get('keywords')),
    robots: clean(meta.get('robots')),
    ogTitle: clean(meta.get('og:title')),
    ogDescription: clean(meta.get('og:description')),
    ogUrl: absoluteUrl(meta.get('og:url'), base),
    ogImage: absoluteUrl(meta.get('og:image') ?? meta.get('og:image:url'), base),
    canonicalUrl: absoluteUrl(canonical, base),
    base,
  };
}
