import { toAppError } from '../errors.js';
import { normalizeUrl, siteHost } from '../crawl/normalize.js';
import { MemoryFrontier } from '../crawl/memory-frontier.js';
import { RobotsCache } from '../crawl/robots.js';
import { sitemapUrls } from '../crawl/sitemap.js';
import type { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { MapBody } from '../schemas/crawl.js';
import type { PageDocument } from '../schemas/page.js';
import { CrawlRun } from '../jobs/crawl-run.js';
import type { CrawlDeps, CrawlSink, CrawlSpec } from '../jobs/crawl-run.js';
import { checkPageOptions } from '../pipeline/fetch-page.js';
import { ChallengePasses } from '../pipeline/challenge-pass.js';

/** Pages fetched for links when sitemaps are thin, and how deep that shallow crawl goes. */
const LINK_CRAWL_PAGES = 20;
const LINK_CRAWL_DEPTH = 3;
const LINK_CRAWL_CONCURRENCY = 4;

/** What map takes beyond the native API's body (Firecrawl's map has these too). */
export interface MapRequest extends MapBody {
  /** Only the sitemaps' URLs (and the start URL): no page is fetched for links. */
  sitemapOnly?: boolean;
  /** Drop query strings: one URL per path. */
  ignoreQueryParameters?: boolean;
}

/** A URL found, with the title and description of its page when discovery fetched it. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/**
 * Discovers a site's URLs: sitemaps first (robots.txt Sitemap lines and /sitemap.xml, indexes and gzip
 * followed), then links from the start page, and a short shallow crawl when the sitemaps gave fewer
 * URLs than asked for. Returns what was found when the budget runs out, rather than failing.
 */
export async function mapSite(body: MapRequest, deadline: Deadline, deps: CrawlDeps): Promise<MapLink[]> {
  const start = parseTargetUrl(body.url);
  const pageOptions = { formats: [], engine: 'http' as const, headers: body.headers, timeout: body.timeout };
  checkPageOptions(pageOptions, false);
  const limit = body.limit ?? 5000;
  const includeSubdomains = body.includeSubdomains ?? true;
  const search = body.search?.toLowerCase();
  const host = siteHost(start);
  const found = new Map<string, MapLink>();

  const inSite = (url: URL): boolean => {
    const candidate = siteHost(url);
    return candidate === host || (includeSubdomains && candidate.endsWith(`.${host}`));
  };
  const matches = (url: URL): boolean => {
    if (!search) return true;
    let path = url.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // Keep the raw path when it is not valid percent-encoding.
    }
    return path.toLowerCase().includes(search);
  };
  const keyOf = (link: string): string | null => {
    const key = normalizeUrl(link);
    if (key === null || !body.ignoreQueryParameters) return key;
    const url = new URL(key);
    url.search = '';
    return url.href;
  };
  const add = (links: string[]): void => {
    for (const link of links) {
      const key = keyOf(link);
      if (key === null || found.has(key)) continue;
      const url = new URL(key);
      if (inSite(url)) found.set(key, { url: key });
    }
  };
  const describe = (link: string, doc: PageDocument): void => {
    const entry = found.get(keyOf(link) ?? '');
    if (!entry) return;
    if (doc.title) entry.title = doc.title;
    if (doc.description) entry.description = doc.description;
  };
  const wanted = (): number => [...found.keys()].filter((k) => matches(new URL(k))).length;

  add([start.href]);
  const robots = new RobotsCache(deps.fetchResource, deps.settings.robotsAgent);
  const rules = await robots.rulesFor(start, deadline);
  if (!body.ignoreSitemap) {
    // An unreachable robots.txt disallows /sitemap.xml too (RFC 9309).
    const roots = [...rules.sitemaps, ...(rules.unreachable ? [] : [new URL('/sitemap.xml', start).href])];
    add(
      await sitemapUrls(
        roots,
        deps.fetchResource,
        (body, url, d) => deps.content.sitemap(body, url, d),
        { maxUrls: 100_000, maxSitemaps: 50, maxDepth: 3 },
        deadline,
      ),
    );
  }

  const results = (): MapLink[] =>
    [...found.entries()]
      .filter(([key]) => matches(new URL(key)))
      .slice(0, limit)
      .map(([, link]) => link);
  if (body.sitemapOnly) return results();

  // In-page links: always the start page; a shallow crawl (the crawler itself, on an in-memory frontier)
  // when sitemaps did not give enough. Every in-site link is followed, including ones the sitemap listed.
  const spec: CrawlSpec = {
    seeds: [start.href],
    follow: true,
    limit: wanted() >= limit ? 1 : LINK_CRAWL_PAGES,
    maxDepth: LINK_CRAWL_DEPTH - 1,
    scope: {
      patterns: 'glob',
      allowBackwardLinks: true,
      allowExternalLinks: false,
      allowSubdomains: includeSubdomains,
    },
    ignoreQueryParameters: false,
    sitemap: 'skip',
    maxPaginationPages: 0,
    robots: true,
    delayMs: 0,
    concurrency: LINK_CRAWL_CONCURRENCY,
    page: { ...pageOptions, timeout: Math.max(1, deadline.remainingMs()) },
  };
  const sink: CrawlSink = {
    document: (item, doc, links) => {
      add(links);
      describe(item.url, doc);
      return Promise.resolve();
    },
    failed: (url, e) => {
      // A page that fails to load contributes no links; discovery goes on.
      deps.log.debug({ op: 'map', url, reason: e.code }, 'page not read');
      return Promise.resolve();
    },
    robotsBlocked: (url) => {
      deps.log.debug({ op: 'map', url, reason: 'robots.txt disallows fetching it' }, 'page not read');
      return Promise.resolve();
    },
  };
  // One pass per host of a challenge in front of the site, for every page the discovery reads.
  const challenges = new ChallengePasses(deps.cookies);
  await new CrawlRun(spec, new MemoryFrontier(), sink, { ...deps, challenges })
    .run(deadline.signal, true)
    .catch((err: unknown) => {
      deps.log.debug({ op: 'map', reason: toAppError(err).code }, 'link discovery stopped');
    });

  return results();
}
