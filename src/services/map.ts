import { toAppError } from '../errors.js';
import { normalizeUrl, siteHost } from '../crawl/normalize.js';
import { RobotsCache } from '../crawl/robots.js';
import { sitemapUrls } from '../crawl/sitemap.js';
import type { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { MapBody } from '../schemas/crawl.js';
import type { CrawlDeps } from './crawl.js';
import { checkPageOptions, fetchAndRender } from './scrape.js';

/** Pages fetched for links when sitemaps are thin, and how deep that shallow crawl goes. */
const LINK_CRAWL_PAGES = 20;
const LINK_CRAWL_DEPTH = 3;
const LINK_CRAWL_CONCURRENCY = 4;

/**
 * Discovers a site's URLs: sitemaps first (robots.txt Sitemap lines and /sitemap.xml, indexes and gzip
 * followed), then links from the start page, and a short shallow crawl when the sitemaps gave fewer
 * URLs than asked for. Returns what was found when the budget runs out, rather than failing.
 */
export async function mapSite(body: MapBody, deadline: Deadline, deps: CrawlDeps): Promise<string[]> {
  const start = parseTargetUrl(body.url);
  const pageOptions = { formats: [], engine: 'http' as const, headers: body.headers, timeout: body.timeout };
  checkPageOptions(pageOptions, false);
  const limit = body.limit ?? 5000;
  const includeSubdomains = body.includeSubdomains ?? true;
  const search = body.search?.toLowerCase();
  const host = siteHost(start);
  const found = new Map<string, string>();

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
  const add = (links: string[]): void => {
    for (const link of links) {
      const key = normalizeUrl(link);
      if (key === null || found.has(key)) continue;
      const url = new URL(key);
      if (inSite(url)) found.set(key, key);
    }
  };
  const wanted = (): number => [...found.keys()].filter((k) => matches(new URL(k))).length;

  add([start.href]);
  const robots = new RobotsCache(deps.fetchResource, deps.settings.robotsAgent);
  const rules = await robots.rulesFor(start, deadline);
  if (!body.ignoreSitemap) {
    const roots = [...rules.sitemaps, new URL('/sitemap.xml', start).href];
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

  // In-page links: always the start page; a shallow crawl when sitemaps did not give enough.
  const budget = wanted() >= limit ? 1 : LINK_CRAWL_PAGES;
  const visited = new Set<string>();
  let level = [start.href];
  for (let depth = 0; depth < LINK_CRAWL_DEPTH && level.length > 0 && visited.size < budget; depth++) {
    const next: string[] = [];
    while (level.length > 0 && visited.size < budget && !deadline.expired) {
      const batch = level.splice(0, Math.min(LINK_CRAWL_CONCURRENCY, budget - visited.size));
      await Promise.all(
        batch.map(async (page) => {
          if (visited.has(page)) return;
          visited.add(page);
          const url = new URL(page);
          if (!(await robots.rulesFor(url, deadline)).isAllowed(url.href)) {
            deps.log.debug(
              { op: 'map', url: page, reason: 'robots.txt disallows fetching it' },
              'page not read',
            );
            return;
          }
          try {
            const rendered = await fetchAndRender(
              { url, sourceUrl: page, options: pageOptions, discover: true },
              deadline,
              deps,
            );
            add(rendered.links);
            // Follow every in-site link of the page, including ones the sitemap already listed.
            for (const link of rendered.links) {
              const key = normalizeUrl(link);
              if (key !== null && found.has(key) && !visited.has(key)) next.push(key);
            }
          } catch (err) {
            // A page that fails to load contributes no links; discovery goes on.
            deps.log.debug({ op: 'map', url: page, reason: toAppError(err).code }, 'page not read');
          }
        }),
      );
    }
    level = next.filter((page) => !visited.has(page));
  }

  return [...found.keys()].filter((key) => matches(new URL(key))).slice(0, limit);
}
