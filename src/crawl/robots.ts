import { createRequire } from 'node:module';
import type { Deadline } from '../lib/deadline.js';
import type { FetchResource } from './fetch-port.js';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** Crawl-delay for our agent (or *), in ms; null when robots.txt sets none. */
  crawlDelayMs: number | null;
  /** Absolute sitemap URLs listed in robots.txt. */
  sitemaps: string[];
}

interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS (module.exports = fn); its typings declare an ES default export.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (
  url: string,
  text: string,
) => ParsedRobots;

const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelayMs: null, sitemaps: [] };
const MAX_ROBOTS_BYTES = 512 * 1024;

/**
 * robots.txt per origin, fetched once per crawl or map. A missing, unreachable, non-200 or oversized
 * robots.txt allows everything; a malformed one is parsed leniently by robots-parser.
 */
export class RobotsCache {
  private readonly cache = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly fetchResource: FetchResource,
    /** The product token matched against User-agent lines (e.g. "Pagewright"). */
    private readonly agent: string,
  ) {}

  rulesFor(url: URL, deadline: Deadline): Promise<RobotsRules> {
    let rules = this.cache.get(url.origin);
    if (!rules) {
      rules = this.load(url.origin, deadline);
      this.cache.set(url.origin, rules);
    }
    return rules;
  }

  private async load(origin: string, deadline: Deadline): Promise<RobotsRules> {
    const robotsUrl = new URL('/robots.txt', origin);
    let text: string;
    try {
      const res = await this.fetchResource(robotsUrl, deadline.slice(10_000));
      if (res.status !== 200 || res.body.length > MAX_ROBOTS_BYTES) return ALLOW_ALL;
      text = res.body.toString('utf8');
    } catch {
      return ALLOW_ALL;
    }
    const robots = robotsParser(robotsUrl.href, text);
    const delay = robots.getCrawlDelay(this.agent);
    const sitemaps = robots
      .getSitemaps()
      .map((s) => {
        try {
          return new URL(s, robotsUrl).href;
        } catch {
          return null;
        }
      })
      .filter((s): s is string => s !== null);
    return {
      isAllowed: (url) => robots.isAllowed(url, this.agent) !== false,
      crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay * 1000 : null,
      sitemaps,
    };
  }
}
