import { LinearRegexList } from '../lib/linear-regex.js';
import { globList } from './glob.js';
import { siteHost } from './normalize.js';

/** Tests a URL against the caller's include or exclude patterns. */
export type UrlMatcher = (url: URL) => boolean;

export interface ScopeOptions {
  include?: UrlMatcher | null;
  exclude?: UrlMatcher | null;
  /** Follow links outside the start URL's path. */
  allowBackwardLinks: boolean;
  /** Follow links to other sites. */
  allowExternalLinks: boolean;
  /** Follow links to subdomains of the start site. */
  allowSubdomains?: boolean;
  /** Deepest URL path followed, in segments below the start URL's path (Firecrawl v1 `maxDepth`). */
  maxPathDepth?: number | null;
}

/**
 * URLs longer than this are out of scope of a crawl with include or exclude patterns: matching costs up
 * to one step per pattern instruction for each character, so the subject is bounded as the patterns are
 * (2,048 characters is the sitemap protocol's limit for a URL).
 */
export const MAX_MATCHED_URL_CHARS = 2048;

/**
 * Globs matched against the URL path, e.g. "/blog/**" (the native crawl's includePaths), on the linear-time
 * engine (see glob.ts). A glob it cannot run is a 400 naming `field[i]`.
 */
export function globMatcher(globs: string[] | undefined, field = 'paths'): UrlMatcher | null {
  if (!globs || globs.length === 0) return null;
  const match = globList(globs, field);
  return (url) => match(url.pathname);
}

/**
 * Regular expressions (Firecrawl's includePaths/excludePaths) tested against the path, or against the whole
 * URL with `onFullUrl`, with RE2 semantics (no lookarounds or backreferences: a 400 naming `field[i]`).
 */
export function regexMatcher(
  patterns: string[] | undefined,
  onFullUrl: boolean,
  field = 'paths',
): UrlMatcher | null {
  if (!patterns || patterns.length === 0) return null;
  const list = LinearRegexList.compile(patterns, field);
  return (url) => list.test(onFullUrl ? url.href : url.pathname);
}

/** Refuses, before a crawl starts, patterns the linear-time engine cannot run (a 400 naming `field[i]`). */
export function checkPatterns(patterns: string[] | undefined, kind: 'glob' | 'regex', field: string): void {
  if (kind === 'glob') globMatcher(patterns, field);
  else regexMatcher(patterns, false, field);
}

const segments = (path: string): number => path.split('/').filter((s) => s !== '').length;

/**
 * Which discovered URLs a crawl may follow. Without allowBackwardLinks only URLs under the start URL's path
 * are followed; without allowExternalLinks only URLs on the start site (www. and the bare domain count as
 * one), or its subdomains with allowSubdomains. With include or exclude patterns, URLs longer than
 * MAX_MATCHED_URL_CHARS are not followed.
 */
export class CrawlScope {
  private readonly host: string;
  private readonly pathPrefix: string;
  private readonly startDepth: number;

  constructor(
    start: URL,
    private readonly options: ScopeOptions,
  ) {
    this.host = siteHost(start);
    this.pathPrefix = start.pathname;
    this.startDepth = segments(start.pathname);
  }

  allows(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const host = siteHost(url);
    const sameSite = host === this.host;
    const subdomain = !sameSite && host.endsWith(`.${this.host}`);
    const external = !sameSite && !(subdomain && this.options.allowSubdomains);
    if (external && !this.options.allowExternalLinks) return false;
    if (sameSite && !this.options.allowBackwardLinks && !url.pathname.startsWith(this.pathPrefix))
      return false;
    const maxPathDepth = this.options.maxPathDepth;
    if (maxPathDepth !== undefined && maxPathDepth !== null) {
      if (segments(url.pathname) - this.startDepth > maxPathDepth) return false;
    }
    const patterns = this.options.include || this.options.exclude;
    if (patterns && url.href.length > MAX_MATCHED_URL_CHARS) return false;
    if (this.options.exclude?.(url)) return false;
    if (this.options.include && !this.options.include(url)) return false;
    return true;
  }
}
