import { createRequire } from 'node:module';
import { TargetCertificateError, TargetUnreachableError, toAppError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { FetchResource, ResourceAccess } from './fetch-port.js';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** Crawl-delay for our agent (or *), in ms; null when robots.txt sets none. */
  crawlDelayMs: number | null;
  /** Absolute sitemap URLs listed in robots.txt. */
  sitemaps: string[];
  /** Why nothing is allowed when robots.txt could not be read (RFC 9309 §2.3.1.4); null when it was read. */
  unreachable: string | null;
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

const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelayMs: null, sitemaps: [], unreachable: null };
/** The part of a longer robots.txt that is read (RFC 9309 §2.5 asks for at least 500 KiB). */
const MAX_ROBOTS_BYTES = 512 * 1024;

/**
 * Failures that say robots.txt is unavailable rather than unreachable, which allows everything as a 4xx does:
 * a redirect chain past the limit (RFC 9309 §2.3.1.2), a file too large to fetch at all, and our own
 * refusals (the SSRF guard, a `proxy` this server cannot honour), which the pages' fetches meet and report.
 */
const UNAVAILABLE_CODES = new Set([
  'TOO_MANY_REDIRECTS',
  'TARGET_TOO_LARGE',
  'TARGET_BLOCKED',
  'BAD_REQUEST',
]);

/**
 * A host name that does not exist (or an invalid redirect): there is no site whose robots.txt could be
 * undefined for now, nothing a disallow would spare, and the pages' own failure names the cause.
 */
const noSuchSite = (e: unknown): boolean =>
  e instanceof TargetUnreachableError && !(e instanceof TargetCertificateError) && !e.retryable;

/** Nothing allowed: robots.txt could not be read (a network or TLS failure, a 5xx, a 429). */
function disallowAll(why: string): RobotsRules {
  return { isAllowed: () => false, crawlDelayMs: null, sitemaps: [], unreachable: why };
}

/**
 * robots.txt per origin, fetched once per crawl or map with the pages' own TLS setting and proxies, and read
 * as RFC 9309 says: a 2xx is parsed (leniently, by robots-parser; past 512 KiB cut there), a 4xx other than
 * 429 allows everything, and an unreachable one (network or TLS failure, timeout, 5xx, 429) disallows the
 * whole origin, with the reason in `unreachable`.
 */
export class RobotsCache {
  private readonly cache = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly fetchResource: FetchResource,
    /** The product token matched against User-agent lines (e.g. "Pagewright"). */
    private readonly agent: string,
    private readonly access: ResourceAccess = {},
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
      const res = await this.fetchResource(robotsUrl, deadline.slice(10_000), this.access);
      if (res.status >= 500 || res.status === 429) {
        return disallowAll(`robots.txt unreachable: ${robotsUrl.host} answered HTTP ${res.status}`);
      }
      if (res.status < 200 || res.status >= 300) return ALLOW_ALL;
      text = res.body.subarray(0, MAX_ROBOTS_BYTES).toString('utf8');
    } catch (err) {
      const e = toAppError(err);
      if (UNAVAILABLE_CODES.has(e.code) || noSuchSite(e)) return ALLOW_ALL;
      return disallowAll(`robots.txt unreachable: ${e.message}`);
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
      unreachable: null,
    };
  }
}
