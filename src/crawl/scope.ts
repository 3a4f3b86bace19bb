import picomatch from 'picomatch';
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

/** Globs (picomatch) matched against the URL path, e.g. "/blog/**" (the seed API's includePaths). */
export function globMatcher(globs: string[] | undefined): UrlMatcher | null {
  if (!globs || globs.length === 0) return null;
  const match = picomatch(globs, { dot: true });
  return (url) => match(url.pathname);
}

/**
 * Regular expressions (Firecrawl's includePaths/excludePaths) tested against the path, or against the whole
 * URL with `onFullUrl`. Invalid patterns are rejected before the crawl starts by the caller.
 */
export function regexMatcher(patterns: string[] | undefined, onFullUrl: boolean): UrlMatcher | null {
  if (!patterns || patterns.length === 0) return null;
  const regexes = patterns.map((p) => new RegExp(p));
  return (url) => {
    const subject = onFullUrl ? url.href : url.pathname;
    return regexes.some((r) => r.test(subject));
  };
}

const segments = (path: string): number => path.split('/').filter((s) => s !== '').length;

/**
 * Which discovered URLs a crawl may follow. Without allowBackwardLinks only URLs under the start URL's path
 * are followed; without allowExternalLinks only URLs on the start site (www. and the bare domain count as
 * one), or its subdomains with allowSubdomains.
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
    if (this.options.exclude?.(url)) return false;
    if (this.options.include && !this.options.include(url)) return false;
    return true;
  }
}
