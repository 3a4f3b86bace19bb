import { randomUUID } from 'node:crypto';
import { checkPatterns } from '../crawl/scope.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type {
  FcBatchBody,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcScrapeOptions,
  FcWebhook,
} from './schemas/jobs.js';
import type { PageDocument } from '../schemas/page.js';
import type { CrawlSettings, CrawlSpec } from '../jobs/crawl-run.js';
import { refuse, refuseRetention, scrapeOptionsOf } from './page-options.js';
import { refuseCacheOnly } from './page-cache.js';
import { refuseAt } from './field-errors.js';
import { jsonWritten } from './page-extras.js';
import type { ExtraFields, PageCapabilities, PageExtras } from './page-extras.js';
import { creditsOf } from '../tenants/credits.js';
import type { WebhookTarget } from '../jobs/webhooks.js';

/**
 * Firecrawl fields this server accepts but cannot act on (the SDKs and integrations send some of them):
 * named in a `warning` on the job's status instead of being silently ignored.
 */
export function noEffectFields(body: Record<string, unknown>, prefix = ''): string[] {
  const o = body as FcScrapeOptions & { deduplicateSimilarURLs?: boolean };
  const named: [string, boolean][] = [
    ['maxAge', (o.maxAge ?? 0) > 0],
    ['fastMode', o.fastMode === true],
    // Images are never sent to a model that reads them here.
    ['parsers "image"', o.parsers?.some(isImageParser) === true],
    ['threatProtection', o.threatProtection !== undefined],
    ['auditMetadata', o.auditMetadata !== undefined],
    ['deduplicateSimilarURLs', o.deduplicateSimilarURLs === false],
    ['location.country', countryOf(o) !== undefined],
    // Firecrawl's internal and experimental switches (`__experimental_omce`, extract's `__experimental_*`...).
    ...Object.entries(o)
      .filter(([key, value]) => key.startsWith('__') && value !== undefined && value !== false)
      .map(([key]): [string, boolean] => [key, true]),
  ];
  return named.filter(([, given]) => given).map(([name]) => `${prefix}${name}`);
}

const isImageParser = (p: unknown): boolean =>
  p === 'image' || (typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'image');

/** A country asked for (not the SDK's "US-generic" default): requests leave from this server's own network. */
function countryOf(o: FcScrapeOptions): string | undefined {
  const country = ((o.location ?? o.geolocation) as { country?: unknown } | undefined)?.country;
  return typeof country === 'string' && !/^us(-generic)?$/i.test(country) ? country : undefined;
}

/** The warning a job carries for the fields it was given without effect, or undefined. */
export function noEffectWarning(fields: string[]): string | undefined {
  if (fields.length === 0) return undefined;
  return `Accepted without effect on this server (see docs/reference/firecrawl.md): ${fields.join(', ')}`;
}

export function webhookOf(webhook: FcWebhook | undefined): WebhookTarget | null {
  if (webhook === undefined) return null;
  const w = typeof webhook === 'string' ? { url: webhook } : webhook;
  let url: URL;
  try {
    url = new URL(w.url);
  } catch {
    refuse('webhook.url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('webhook.url', 'must be http or https');
  return {
    url: url.href,
    headers: w.headers ?? {},
    metadata: (w.metadata ?? {}) as Record<string, unknown>,
    events: w.events ?? ['started', 'page', 'completed', 'failed'],
  };
}

/** Firecrawl's path patterns, refused (400 naming the field) where the linear-time engine cannot run them. */
function regexes(patterns: string[] | undefined, field: string): string[] | undefined {
  checkPatterns(patterns, 'regex', field);
  return patterns;
}

/** Firecrawl's depth of a URL: its non-empty path segments, an index page (index.html, index.php) not counted. */
function urlDepth(url: URL): number {
  return url.pathname.split('/').filter((s) => s !== '' && s !== 'index.html' && s !== 'index.php').length;
}

/**
 * A Firecrawl crawl request (v1 or v2) as a crawl spec, and what its pages ask of the LLM. Its `prompt` is
 * resolved before (crawl-prompt.ts merges the options the server's LLM derives) and not read here.
 */
export function crawlSpecOf(
  body: FcCrawlV2Body | FcCrawlV1Body,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  caps: PageCapabilities,
): { spec: CrawlSpec; extras: PageExtras | null } {
  const start = parseTargetUrl(body.url);
  // v1's maxDepth counts from the site's root in Firecrawl: a start URL already deeper is refused.
  if (api === 'v1' && urlDepth(start) > ((body as FcCrawlV1Body).maxDepth ?? 10))
    refuseAt('', ['url'], 'custom', 'URL depth exceeds the specified maxDepth');
  if (body.ignoreRobotsTxt) refuse('ignoreRobotsTxt', 'this server always respects robots.txt');
  if (body.robotsUserAgent !== undefined) refuse('robotsUserAgent', 'robots.txt is matched as "Pagewright"');
  // Firecrawl's default limit is 10,000; a server with a lower CRAWL_MAX_PAGES lowers the default instead
  // of refusing a field the caller never sent.
  const limit = body.limit ?? Math.min(10_000, settings.maxPages);
  if (limit > settings.maxPages)
    refuse('limit', `must be <= ${settings.maxPages} on this server (CRAWL_MAX_PAGES)`);
  const v1 = api === 'v1' ? (body as FcCrawlV1Body) : null;
  const sitemap = v1
    ? v1.ignoreSitemap
      ? 'skip'
      : 'include'
    : ((body as FcCrawlV2Body).sitemap ?? 'include');
  const entireDomain = body.crawlEntireDomain ?? v1?.allowBackwardLinks ?? false;
  refuseRetention(body.zeroDataRetention, 'zeroDataRetention');
  const delayMs = body.delay === undefined ? null : Math.round(body.delay * 1000);
  if (delayMs !== null && delayMs > settings.maxDelayMs) {
    refuse('delay', `must be <= ${settings.maxDelayMs / 1000} seconds on this server (CRAWL_MAX_DELAY_MS)`);
  }
  refuseCacheOnly(body.scrapeOptions ?? {}, 'scrapeOptions.', 'a crawl');
  const { page, extras } = scrapeOptionsOf(body.scrapeOptions ?? {}, 'scrapeOptions.', caps, api);
  const spec: CrawlSpec = {
    seeds: [start.href],
    follow: true,
    limit,
    maxDepth: body.maxDiscoveryDepth ?? 1000,
    scope: {
      include: regexes(body.includePaths, 'includePaths'),
      exclude: regexes(body.excludePaths, 'excludePaths'),
      patterns: 'regex',
      patternsOnFullUrl: body.regexOnFullURL ?? false,
      allowBackwardLinks: entireDomain,
      allowExternalLinks: body.allowExternalLinks ?? false,
      allowSubdomains: body.allowSubdomains ?? false,
      maxPathDepth: v1 ? (v1.maxDepth ?? 10) : null,
    },
    ignoreQueryParameters: body.ignoreQueryParameters ?? false,
    sitemap,
    // Firecrawl counts sitemap pages at discovery depth 0 and follows no pagination links of its own.
    sitemapDepth: 0,
    maxPaginationPages: 0,
    robots: true,
    // The operator's CRAWL_MIN_DELAY_MS is a floor a caller cannot lower.
    delayMs: delayMs === null ? null : Math.max(delayMs, settings.minDelayMs),
    concurrency: Math.min(body.maxConcurrency ?? settings.concurrency, settings.concurrency * 4),
    page,
    pageFacts: false, // Firecrawl's documents show none of them
  };
  return { spec, extras };
}

/** A Firecrawl batch scrape as a crawl that follows nothing; invalid URLs are refused or listed. */
export function batchSpecOf(
  body: FcBatchBody,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  caps: PageCapabilities,
): { spec: CrawlSpec; extras: PageExtras | null; invalidURLs: string[] | undefined } {
  const ignoreInvalid = body.ignoreInvalidURLs ?? api === 'v2';
  if (body.appendToId !== undefined) refuse('appendToId', 'appending to a batch is not supported');
  if (body.agent !== undefined) refuse('agent', 'agents are not supported');
  const seeds: string[] = [];
  const invalid: string[] = [];
  for (const [i, url] of body.urls.entries()) {
    try {
      seeds.push(parseTargetUrl(url).href);
    } catch (err) {
      if (!ignoreInvalid) refuse(`urls[${i}]`, (err as Error).message);
      invalid.push(url);
    }
  }
  if (seeds.length === 0) refuse('urls', 'no valid URL to scrape');
  const {
    urls: _u,
    webhook: _w,
    appendToId: _a,
    ignoreInvalidURLs: _i,
    maxConcurrency,
    agent: _g,
    origin: _o,
    integration: _n,
    ...options
  } = body;
  refuseCacheOnly(options, '', 'a batch scrape');
  const { page, extras } = scrapeOptionsOf(options, '', caps, api);
  return {
    extras,
    spec: {
      seeds,
      follow: false,
      limit: seeds.length,
      maxDepth: 0,
      scope: { patterns: 'glob', allowBackwardLinks: true, allowExternalLinks: true, allowSubdomains: true },
      ignoreQueryParameters: false,
      sitemap: 'skip',
      maxPaginationPages: 0,
      robots: false,
      delayMs: 0,
      concurrency: Math.min(maxConcurrency ?? settings.concurrency, settings.concurrency * 4),
      page,
      pageFacts: false, // Firecrawl's documents show none of them
    },
    invalidURLs: ignoreInvalid ? invalid : undefined,
  };
}

/**
 * A page as Firecrawl's document: the requested formats, the extra fields written after the page (Markdown and
 * HTML read only for them are left out), and Firecrawl's metadata names.
 */
export function firecrawlDocument(
  doc: PageDocument,
  sourceUrl: string,
  llm: { fields?: ExtraFields; dropMarkdown?: boolean; dropRawHtml?: boolean } = {},
): Record<string, unknown> {
  const { metadata: m, title: _t, description: _d, url: _u, ...formats } = doc;
  if (llm.dropMarkdown) delete formats.markdown;
  if (llm.dropRawHtml) delete formats.rawHtml;
  return {
    ...(formats as Record<string, unknown>),
    ...llm.fields,
    metadata: {
      title: m.title,
      description: m.description,
      language: m.language,
      ...(m.keywords !== null ? { keywords: m.keywords } : {}),
      ...(m.robots !== null ? { robots: m.robots } : {}),
      ...(m.ogTitle !== null ? { ogTitle: m.ogTitle } : {}),
      ...(m.ogDescription !== null ? { ogDescription: m.ogDescription } : {}),
      ...(m.ogUrl !== null ? { ogUrl: m.ogUrl } : {}),
      ...(m.ogImage !== null ? { ogImage: m.ogImage } : {}),
      sourceURL: sourceUrl,
      url: m.url,
      statusCode: m.statusCode,
      contentType: m.contentType,
      // Firecrawl's numPages is the pages read; totalPages the document's own count.
      ...(m.numPages !== undefined ? { numPages: m.pagesRead ?? m.numPages, totalPages: m.numPages } : {}),
      ...(m.author ? { author: m.author } : {}),
      ...(m.creationDate ? { creationDate: m.creationDate } : {}),
      scrapeId: randomUUID(),
      proxyUsed: m.stealthProxy ? 'stealth' : 'basic',
      creditsUsed: creditsOf(m, { json: jsonWritten(llm.fields) }),
      ...(m.attempts !== undefined ? { attempts: m.attempts } : {}),
    },
  };
}
