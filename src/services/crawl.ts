import type { Logger } from '../lib/logger.js';
import type { FetchResource } from '../crawl/fetch-port.js';
import type { FrontierItem } from '../crawl/frontier.js';
import { MemoryFrontier } from '../crawl/memory-frontier.js';
import { HostLimiter } from '../crawl/politeness.js';
import { RobotsCache } from '../crawl/robots.js';
import { CrawlScope } from '../crawl/scope.js';
import { sitemapUrls } from '../crawl/sitemap.js';
import { BadRequestError, toAppError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { CrawlBody, CrawlEvent, CrawlPage } from '../schemas/crawl.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeDeps } from './scrape.js';
import { checkPageOptions, fetchAndRender } from './scrape.js';

export interface CrawlSettings {
  /** Delay between request starts to one host when robots.txt sets no Crawl-delay. */
  minDelayMs: number;
  /** Longest Crawl-delay honoured (a robots.txt asking for more gets this). */
  maxDelayMs: number;
  /** Pages fetched at once with useParallel. */
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

/** Events waiting for a slow reader at most; workers pause beyond this (backpressure). */
const MAX_BUFFERED_EVENTS = 32;

function toCrawlPage(doc: PageDocument): CrawlPage {
  const { metadata, description, ...content } = doc;
  return {
    ...content,
    metadata: {
      title: metadata.title,
      url: metadata.url,
      statusCode: metadata.statusCode,
      contentType: metadata.contentType,
      wordCount: metadata.wordCount,
      readingTime: metadata.readingTime,
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Crawls a site breadth-first and yields its events (status, document, error, complete). Stops when
 * the frontier is exhausted, `limit` pages were crawled, `signal` aborts (client gone), or the consumer
 * stops iterating. Input is validated before the first event.
 */
export async function* crawlSite(
  body: CrawlBody,
  signal: AbortSignal,
  deps: CrawlDeps,
): AsyncGenerator<CrawlEvent> {
  const started = Date.now();
  const start = parseTargetUrl(body.url);
  checkPageOptions(body, deps.browser !== null);
  const { settings } = deps;
  const limit = body.limit ?? 100;
  if (limit > settings.maxPages) {
    throw new BadRequestError(`limit must be <= ${settings.maxPages} on this server (CRAWL_MAX_PAGES)`);
  }
  const maxDepth = body.maxDepth ?? 2;
  const maxPagination = body.detectPagination === false ? 0 : (body.maxPaginationPages ?? 50);
  const timeout = body.timeout ?? 30000;
  const stop = new AbortController();
  const crawlSignal = AbortSignal.any([signal, stop.signal]);
  const scope = new CrawlScope(start, {
    includePaths: body.includePaths,
    excludePaths: body.excludePaths,
    allowBackwardLinks: body.allowBackwardLinks ?? false,
    allowExternalLinks: body.allowExternalLinks ?? false,
  });
  const robots = new RobotsCache(deps.fetchResource, settings.robotsAgent);
  const limiter = new HostLimiter(settings.hostConcurrency);
  const frontier = new MemoryFrontier();
  frontier.add({ url: start.href, depth: 0, pagination: false });

  const events: CrawlEvent[] = [];
  let wake: (() => void) | null = null;
  const emit = (event: CrawlEvent): void => {
    events.push(event);
    wake?.();
  };
  let reserved = 0;
  let crawled = 0;
  let errors = 0;
  let paginationFollowed = 0;
  let hitLimit = false;
  /** URLs left out, by reason, for the complete event (each is also one debug log line). */
  const skipped = { robots: 0, outOfScope: 0, tooDeep: 0 };
  const drop = (url: string, reason: keyof typeof skipped, detail: string): void => {
    skipped[reason]++;
    deps.log.debug({ op: 'crawl', url, reason: detail }, 'url dropped');
  };

  const enqueue = (links: string[], depth: number, pagination: boolean): void => {
    for (const link of links) {
      let url: URL;
      try {
        url = new URL(link);
      } catch {
        continue;
      }
      if (!scope.allows(url)) {
        drop(url.href, 'outOfScope', 'outside the crawl scope (paths, backward or external link rules)');
        continue;
      }
      if (pagination) {
        if (paginationFollowed >= maxPagination) return;
        if (frontier.add({ url: url.href, depth, pagination })) paginationFollowed++;
      } else if (depth <= maxDepth) {
        frontier.add({ url: url.href, depth, pagination });
      } else {
        drop(url.href, 'tooDeep', `deeper than maxDepth ${maxDepth}`);
      }
    }
  };

  const crawlOne = async (item: FrontierItem): Promise<void> => {
    const url = new URL(item.url);
    const deadline = Deadline.after(timeout, crawlSignal);
    const rules = await robots.rulesFor(url, deadline);
    if (!rules.isAllowed(url.href)) {
      drop(url.href, 'robots', 'robots.txt disallows it');
      return;
    }
    if (reserved >= limit) {
      hitLimit = true;
      return;
    }
    reserved++;
    const delay = Math.min(rules.crawlDelayMs ?? settings.minDelayMs, settings.maxDelayMs);
    if (!(await limiter.acquire(url.host, delay, crawlSignal))) return;
    try {
      emit({ type: 'status', crawled, queued: frontier.queued, current_url: url.href });
      const rendered = await fetchAndRender(
        { url, sourceUrl: item.url, options: body, discover: true },
        Deadline.after(timeout, crawlSignal),
        deps,
      );
      if (crawlSignal.aborted) return;
      crawled++;
      while (events.length >= MAX_BUFFERED_EVENTS && !crawlSignal.aborted) await sleep(5);
      emit({ type: 'document', data: toCrawlPage(rendered.document) });
      enqueue(rendered.links, item.depth + 1, false); // links past maxDepth are counted as skipped
      if (maxPagination > 0) enqueue(rendered.pagination, item.depth, true);
    } catch (err) {
      if (crawlSignal.aborted) return;
      errors++;
      const e = toAppError(err);
      emit({ type: 'error', url: url.href, code: e.code, error: e.message });
    } finally {
      limiter.release(url.host);
    }
  };

  const worker = async (): Promise<void> => {
    while (!crawlSignal.aborted && reserved < limit) {
      const item = frontier.next();
      if (!item) {
        if (frontier.finished) return;
        await sleep(5); // others are in flight and may still add URLs
        continue;
      }
      try {
        await crawlOne(item);
      } finally {
        frontier.complete(item);
      }
    }
    if (reserved >= limit && frontier.queued > 0) hitLimit = true;
  };

  let done = false;
  const run = (async () => {
    if (!body.ignoreSitemap) {
      const deadline = Deadline.after(timeout, crawlSignal);
      const rules = await robots.rulesFor(start, deadline);
      const roots = [...rules.sitemaps, new URL('/sitemap.xml', start).href];
      const pages = await sitemapUrls(
        roots,
        deps.fetchResource,
        (body, url, d) => deps.content.sitemap(body, url, d),
        { maxUrls: Math.min(limit * 10, 50_000), maxSitemaps: 50, maxDepth: 3 },
        deadline,
      );
      enqueue(pages, 1, false);
    }
    const workers = body.useParallel ? settings.concurrency : 1;
    await Promise.all(Array.from({ length: workers }, worker));
  })().finally(() => {
    done = true;
    wake?.();
  });

  try {
    for (;;) {
      const event = events.shift();
      if (event) {
        yield event;
        continue;
      }
      if (done) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
    await run;
    yield {
      type: 'complete',
      crawled,
      errors,
      discovered: frontier.discovered,
      duration_ms: Date.now() - started,
      stopped: hitLimit ? 'limit' : null,
      skipped,
    };
  } finally {
    // The consumer stopped early (client gone, error): stop every worker.
    stop.abort();
  }
}
