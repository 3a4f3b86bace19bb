import picomatch from 'picomatch';
import { siteHost } from './normalize.js';

export interface ScopeOptions {
  includePaths?: string[];
  excludePaths?: string[];
  allowBackwardLinks: boolean;
  allowExternalLinks: boolean;
}

/**
 * Which discovered URLs a crawl may follow. Globs (picomatch) match the URL path, e.g. "/blog/**".
 * Without allowBackwardLinks only URLs under the start URL's path are followed; without
 * allowExternalLinks only URLs on the start host (www. and the bare domain count as one).
 */
export class CrawlScope {
  private readonly include: picomatch.Matcher | null;
  private readonly exclude: picomatch.Matcher | null;
  private readonly host: string;
  private readonly pathPrefix: string;

  constructor(
    start: URL,
    private readonly options: ScopeOptions,
  ) {
    const compile = (globs?: string[]): picomatch.Matcher | null =>
      globs && globs.length > 0 ? picomatch(globs, { dot: true }) : null;
    this.include = compile(options.includePaths);
    this.exclude = compile(options.excludePaths);
    this.host = siteHost(start);
    this.pathPrefix = start.pathname;
  }

  allows(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const external = siteHost(url) !== this.host;
    if (external && !this.options.allowExternalLinks) return false;
    if (!external && !this.options.allowBackwardLinks && !url.pathname.startsWith(this.pathPrefix))
      return false;
    if (this.exclude?.(url.pathname)) return false;
    if (this.include && !this.include(url.pathname)) return false;
    return true;
  }
}
