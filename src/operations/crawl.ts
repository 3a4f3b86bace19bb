import { checkPatterns } from '../crawl/scope.js';
import { BadRequestError } from '../errors.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { CrawlBody, CrawlEvent, CrawlPage } from '../schemas/crawl.js';
import type { PageDocument } from '../schemas/page.js';
import type { CrawlSettings, CrawlSpec } from '../jobs/crawl-run.js';
import type { JobManager } from '../jobs/job-manager.js';
import { checkPageOptions } from '../pipeline/fetch-page.js';
import type { Caller } from '../tenants/tenant.js';

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
      ...(metadata.attempts === undefined ? {} : { attempts: metadata.attempts }),
    },
  };
}

/** The native crawl request as a crawl spec (input is checked here, before the first event). */
export function seedCrawlSpec(
  body: CrawlBody,
  settings: CrawlSettings,
  browserAvailable: boolean,
): CrawlSpec {
  const start = parseTargetUrl(body.url);
  checkPageOptions(body, browserAvailable);
  checkPatterns(body.includePaths, 'glob', 'includePaths');
  checkPatterns(body.excludePaths, 'glob', 'excludePaths');
  const limit = body.limit ?? 100;
  if (limit > settings.maxPages) {
    throw new BadRequestError(`limit must be <= ${settings.maxPages} on this server (CRAWL_MAX_PAGES)`);
  }
  const {
    url: _url,
    limit: _l,
    maxDepth,
    includePaths,
    excludePaths,
    origin: _o,
    integration: _i,
    ...rest
  } = body;
  const { allowBackwardLinks, allowExternalLinks, detectPagination, maxPaginationPages, ignoreSitemap } =
    rest;
  const { useParallel, ...page } = rest;
  delete page.allowBackwardLinks;
  delete page.allowExternalLinks;
  delete page.detectPagination;
  delete page.maxPaginationPages;
  delete page.ignoreSitemap;
  return {
    seeds: [start.href],
    follow: true,
    limit,
    maxDepth: maxDepth ?? 2,
    scope: {
      include: includePaths,
      exclude: excludePaths,
      patterns: 'glob',
      allowBackwardLinks: allowBackwardLinks ?? false,
      allowExternalLinks: allowExternalLinks ?? false,
      allowSubdomains: false,
    },
    ignoreQueryParameters: false,
    sitemap: ignoreSitemap ? 'skip' : 'include',
    maxPaginationPages: detectPagination === false ? 0 : (maxPaginationPages ?? 50),
    robots: true,
    delayMs: null,
    concurrency: useParallel ? settings.concurrency : 1,
    page,
  };
}

/**
 * The native crawl (/api/v1/crawl and its stream) as a view of a job: events in order (status, document,
 * error, complete), with backpressure on documents. Stopping the iteration (client gone) cancels the job.
 */
export async function* crawlSite(
  body: CrawlBody,
  signal: AbortSignal,
  jobs: JobManager,
  settings: CrawlSettings,
  browserAvailable: boolean,
  caller: Caller,
): AsyncGenerator<CrawlEvent> {
  const started = Date.now();
  const spec = seedCrawlSpec(body, settings, browserAvailable);
  const stop = new AbortController();
  const crawlSignal = AbortSignal.any([signal, stop.signal]);
  const events: CrawlEvent[] = [];
  let wake: (() => void) | null = null;
  /** Workers waiting for room in the buffer (several with useParallel): all are woken on each read. */
  const waitingForRoom = new Set<() => void>();
  const wakeWriters = (): void => {
    for (const resolve of waitingForRoom) resolve();
    waitingForRoom.clear();
  };
  const emit = (event: CrawlEvent): void => {
    events.push(event);
    wake?.();
  };
  const room = async (): Promise<void> => {
    while (events.length >= MAX_BUFFERED_EVENTS && !crawlSignal.aborted) {
      await new Promise<void>((resolve) => waitingForRoom.add(resolve));
    }
  };
  let errors = 0;
  let done = false;
  const run = jobs
    .attachCrawl(
      spec,
      {
        fetching: (url, crawled, queued, throttled) =>
          emit({
            type: 'status',
            crawled,
            queued,
            current_url: url,
            ...(throttled.length > 0 ? { throttled } : {}),
          }),
        document: async (_item, doc) => {
          await room();
          emit({ type: 'document', data: toCrawlPage(doc) });
        },
        failed: (url, e, attempts) => {
          errors++;
          emit({ type: 'error', url, code: e.code, error: e.message, attempts });
          return Promise.resolve();
        },
        robotsBlocked: () => Promise.resolve(),
      },
      crawlSignal,
      caller,
    )
    .finally(() => {
      done = true;
      wake?.();
    });
  run.catch(() => undefined); // awaited below; this keeps an early rejection from being unhandled

  try {
    for (;;) {
      const event = events.shift();
      if (event) {
        wakeWriters();
        yield event;
        continue;
      }
      if (done) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
    const summary = await run;
    yield {
      type: 'complete',
      crawled: summary.crawled,
      errors,
      discovered: summary.discovered,
      duration_ms: Date.now() - started,
      stopped: summary.stopped,
      skipped: summary.skipped,
    };
  } finally {
    // The consumer stopped early (client gone, error): the job is cancelled.
    stop.abort();
    wakeWriters();
  }
}
