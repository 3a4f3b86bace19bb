import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import type { Deadline } from '../lib/deadline.js';
import type { FetchResource } from './fetch-port.js';

export interface SitemapLimits {
  /** Stop after this many page URLs. */
  maxUrls: number;
  /** Sitemap documents fetched at most (indexes included): bounds sitemap bombs. */
  maxSitemaps: number;
  /** Nesting of sitemap indexes followed at most. */
  maxDepth: number;
}

const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

export interface SitemapDocument {
  pages: string[];
  children: string[];
}

function locs(entries: unknown): string[] {
  if (!Array.isArray(entries)) return [];
  return entries
    .map((entry) => (entry && typeof entry === 'object' && 'loc' in entry ? String(entry.loc).trim() : ''))
    .filter((loc) => loc.length > 0);
}

/** Parses an XML sitemap or sitemap index (gzipped or not), or a plain-text list of URLs. */
export function parseSitemap(body: Buffer): SitemapDocument {
  const bytes =
    body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES }) : body;
  const text = bytes.toString('utf8');
  if (!/^\s*(?:<\?xml|<urlset|<sitemapindex|<!--)/.test(text)) {
    return { pages: text.split(/\s+/).filter((line) => /^https?:\/\//.test(line)), children: [] };
  }
  let doc: Record<string, { url?: unknown; sitemap?: unknown } | undefined>;
  try {
    doc = parser.parse(text) as typeof doc;
  } catch {
    return { pages: [], children: [] };
  }
  return { pages: locs(doc.urlset?.url), children: locs(doc.sitemapindex?.sitemap) };
}

/** Parses one fetched sitemap (the service runs parseSitemap in a content worker, off the event loop). */
export type ParseSitemap = (body: Buffer, url: string, deadline: Deadline) => Promise<SitemapDocument>;

/**
 * Page URLs from sitemaps, breadth-first from the given roots (robots.txt Sitemap lines, /sitemap.xml),
 * following sitemap indexes, within the limits. Unreachable or invalid sitemaps are skipped.
 */
export async function sitemapUrls(
  roots: string[],
  fetchResource: FetchResource,
  parse: ParseSitemap,
  limits: SitemapLimits,
  deadline: Deadline,
): Promise<string[]> {
  const pages = new Set<string>();
  const seen = new Set<string>();
  let level = roots.map((url) => ({ url, depth: 0 }));
  let fetched = 0;
  while (level.length > 0 && pages.size < limits.maxUrls && !deadline.expired) {
    const next: { url: string; depth: number }[] = [];
    for (const { url, depth } of level) {
      if (seen.has(url) || fetched >= limits.maxSitemaps || pages.size >= limits.maxUrls || deadline.expired)
        continue;
      seen.add(url);
      fetched++;
      let doc: SitemapDocument;
      try {
        const res = await fetchResource(new URL(url), deadline.slice(15_000));
        if (res.status !== 200) continue;
        doc = await parse(res.body, url, deadline);
      } catch {
        continue;
      }
      for (const page of doc.pages) {
        if (pages.size >= limits.maxUrls) break;
        pages.add(page);
      }
      if (depth < limits.maxDepth)
        for (const child of doc.children) next.push({ url: child, depth: depth + 1 });
    }
    level = next;
  }
  return [...pages];
}
