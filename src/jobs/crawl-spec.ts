import type { FetchResource } from '../crawl/fetch-port.js';
import type { FrontierItem } from '../crawl/frontier.js';
import type { HeldHost } from '../crawl/throttle.js';
import type { AppError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import type { ScopeOptions } from '../crawl/scope.js';

export interface CrawlSettings {
  /** Delay between request starts to one host when robots.txt sets no Crawl-delay. */
  minDelayMs: number;
  /** Longest Crawl-delay honoured (a robots.txt asking for more gets this). */
  maxDelayMs: number;
  /** Pages fetched at once by a parallel crawl. */
  concurrency: number;
  /** Requests in flight to one host at most. */
  hostConcurrency: number;
  /** Upper bound for `limit`. */
  maxPages: number;
  /** Product token matched against robots.txt User-agent lines. */
  robotsAgent: string;
}

export interface CrawlDeps extends ScrapeDeps {
  settings: CrawlSettings;
  fetchResource: FetchResource;
  /** Where pages left out (robots, scope, failures) are logged with the reason. */
  log: Logger;
}

/** Everything a crawl (or a batch, which is a crawl that follows nothing) needs to run; stored with its job. */
export interface CrawlSpec {
  /** Start URLs at depth 0: a crawl's start URL, or a batch's URLs. */
  seeds: string[];
  /** Follow links found on pages (false for a batch). */
  follow: boolean;
  limit: number;
  /** Link hops followed from the seeds. */
  maxDepth: number;
  scope: Omit<ScopeOptions, 'include' | 'exclude'> & {
    include?: string[];
    exclude?: string[];
    /** How include/exclude are read: globs on the path (the native API) or regular expressions (Firecrawl). */
    patterns: 'glob' | 'regex';
    /** Regular expressions are tested against the whole URL instead of the path. */
    patternsOnFullUrl?: boolean;
  };
  /** Drop the query string of discovered URLs (one page per path). */
  ignoreQueryParameters: boolean;
  /** Seed from sitemaps too (`include`), not at all (`skip`), or only from sitemaps (`only`). */
  sitemap: 'include' | 'skip' | 'only';
  /** Link depth given to sitemap pages (default 1; Firecrawl counts them at discovery depth 0). */
  sitemapDepth?: number;
  /** Pagination pages followed at most (0: none). */
  maxPaginationPages: number;
  /** Respect robots.txt (crawls do; a batch of URLs given one by one is like scrape, which does not). */
  robots: boolean;
  /**
   * Delay between request starts to one host, ms (Firecrawl `delay`; 0 for batches and map); a longer robots
   * Crawl-delay still applies. Null: robots Crawl-delay, else CRAWL_MIN_DELAY_MS.
   */
  delayMs: number | null;
  /** Pages fetched at once. */
  concurrency: number;
  /** Options of each page. */
  page: ScrapeOptions;
  /**
   * Work out the facts only a native document shows (its excerpt, frameworks, content/script ratio, page
   * type, word count: content/build.ts); absent means yes. Firecrawl's documents show none of them.
   */
  pageFacts?: boolean;
}

/** Where a crawl's results go: a job's store, or the caller attached to the native crawl. */
export interface CrawlSink {
  /**
   * A page is about to be fetched (the native crawl stream's status event); `throttled` lists the hosts
   * holding the crawl back by their Retry-After.
   */
  fetching?(url: string, crawled: number, queued: number, throttled: HeldHost[]): void;
  /** Resolves when the document is kept (stored, or taken by the reader: backpressure). */
  document(item: FrontierItem, doc: PageDocument, links: string[]): Promise<void>;
  /** A page failed for good: `attempts` fetches were made (0: its host was paused, nothing was fetched). */
  failed(url: string, error: AppError, attempts: number): Promise<void>;
  robotsBlocked(url: string): Promise<void>;
  /** Pages expected so far (the job's `total`). */
  progress?(total: number): void;
  /** Whether a document for this URL is already stored (asked only by a resumed crawl). */
  stored?(url: string): Promise<boolean>;
}

export interface CrawlSummary {
  crawled: number;
  errors: number;
  discovered: number;
  /** Why the crawl ended early ("limit"), null when it ran out of URLs. */
  stopped: 'limit' | null;
  skipped: { robots: number; outOfScope: number; tooDeep: number; hostPaused: number };
}
