import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../errors.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { FormatName } from '../schemas/common.js';
import type {
  FcBatchBody,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcScrapeOptions,
  FcWebhook,
} from '../schemas/firecrawl.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import type { CrawlSettings, CrawlSpec } from './crawl-run.js';
import { checkPageOptions } from './scrape.js';
import type { WebhookTarget } from './webhooks.js';

const SUPPORTED_FORMATS = new Set<FormatName>([
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
]);
const NO_CACHE_PROXIES = new Set(['basic', 'auto']);

/** Fields asking for something this server does not do: a 400 naming the field, never silently ignored. */
export function refuse(field: string, why: string): never {
  throw new BadRequestError(`${field}: ${why}`);
}

/**
 * Firecrawl fields this server accepts but cannot act on (the SDKs and integrations send some of them):
 * named in a `warning` on the job's status instead of being silently ignored.
 */
export function noEffectFields(body: Record<string, unknown>, prefix = ''): string[] {
  const o = body as FcScrapeOptions & { deduplicateSimilarURLs?: boolean };
  const named: [string, boolean][] = [
    ['blockAds', o.blockAds === true],
    ['maxAge', (o.maxAge ?? 0) > 0],
    ['minAge', (o.minAge ?? 0) > 0],
    ['fastMode', o.fastMode === true],
    ['parsers', (o.parsers?.length ?? 0) > 0],
    ['parsePDF', o.parsePDF !== undefined],
    ['threatProtection', o.threatProtection !== undefined],
    ['auditMetadata', o.auditMetadata !== undefined],
    ['deduplicateSimilarURLs', o.deduplicateSimilarURLs === false],
  ];
  return named.filter(([, given]) => given).map(([name]) => `${prefix}${name}`);
}

/** The warning a job carries for the fields it was given without effect, or undefined. */
export function noEffectWarning(fields: string[]): string | undefined {
  if (fields.length === 0) return undefined;
  return `Accepted without effect on this server (see the README's Firecrawl table): ${fields.join(', ')}`;
}

/** Zero data retention cannot be promised: documents are what a job's caller comes back for. */
export function refuseRetention(value: boolean | undefined, field: string): void {
  if (value) refuse(field, 'documents are kept for JOB_TTL_HOURS after the job ends on this server');
}

function formatsOf(formats: FcScrapeOptions['formats'], prefix: string): FormatName[] {
  const out: FormatName[] = [];
  for (const [i, f] of (formats ?? ['markdown']).entries()) {
    const name = typeof f === 'string' ? f : f.type;
    if (
      name === 'screenshot@fullPage' ||
      (typeof f === 'object' && (f as Record<string, unknown>).fullPage === true)
    ) {
      refuse(`${prefix}formats[${i}]`, 'full-page screenshots are not supported by this server yet');
    }
    if (typeof f === 'object') {
      for (const key of Object.keys(f)) {
        if (key !== 'type' && !(key === 'fullPage' && (f as Record<string, unknown>).fullPage === false)) {
          refuse(`${prefix}formats[${i}].${key}`, 'not supported by this server');
        }
      }
    }
    if (!SUPPORTED_FORMATS.has(name as FormatName)) {
      refuse(
        `${prefix}formats[${i}]`,
        `format '${name}' is not supported by this server (supported: ${[...SUPPORTED_FORMATS].join(', ')})`,
      );
    }
    if (!out.includes(name as FormatName)) out.push(name as FormatName);
  }
  return out;
}

/** The per-page options of a Firecrawl request as this service's scrape options (onlyMainContent defaults to true). */
export function scrapeOptionsOf(
  o: FcScrapeOptions,
  prefix: string,
  browserAvailable: boolean,
): ScrapeOptions {
  if (o.mobile) refuse(`${prefix}mobile`, 'mobile emulation is not supported by this server yet');
  if (o.proxy !== undefined && !NO_CACHE_PROXIES.has(o.proxy)) {
    refuse(`${prefix}proxy`, `proxy '${o.proxy}' is not available on this server (basic or auto)`);
  }
  if (o.useMock !== undefined) refuse(`${prefix}useMock`, 'mocks are not supported');
  if (o.actions && o.actions.length > 0) refuse(`${prefix}actions`, 'use /api/v1/scrape for browser actions');
  if (o.jsonOptions || o.extract)
    refuse(`${prefix}jsonOptions`, 'the json format is not supported by this server yet');
  if (o.changeTrackingOptions) refuse(`${prefix}changeTrackingOptions`, 'change tracking is not supported');
  if (o.lockdown) refuse(`${prefix}lockdown`, 'not supported');
  if (o.redactPII) refuse(`${prefix}redactPII`, 'not supported');
  if (o.profile !== undefined) refuse(`${prefix}profile`, 'browser profiles are not supported');
  refuseRetention(o.zeroDataRetention, `${prefix}zeroDataRetention`);
  for (const field of ['location', 'geolocation'] as const) {
    if (o[field] && Object.keys(o[field]).length > 0) {
      refuse(
        `${prefix}${field}`,
        'requests from a chosen country or language need a proxy this server does not have',
      );
    }
  }
  const page: ScrapeOptions = {
    formats: formatsOf(o.formats, prefix),
    onlyMainContent: o.onlyMainContent ?? true,
    includeTags: o.includeTags,
    excludeTags: o.excludeTags,
    headers: o.headers,
    waitFor: o.waitFor,
    timeout: o.timeout,
    skipTlsVerification: o.skipTlsVerification,
    removeBase64Images: o.removeBase64Images,
  };
  for (const key of Object.keys(page) as (keyof ScrapeOptions)[])
    if (page[key] === undefined) delete page[key];
  checkPageOptions(page, browserAvailable);
  return page;
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

function regexes(patterns: string[] | undefined, field: string): string[] | undefined {
  for (const [i, p] of (patterns ?? []).entries()) {
    try {
      new RegExp(p);
    } catch (err) {
      refuse(`${field}[${i}]`, `invalid regular expression: ${(err as Error).message}`);
    }
  }
  return patterns;
}

/** A Firecrawl crawl request (v1 or v2) as a crawl spec. */
export function crawlSpecOf(
  body: FcCrawlV2Body | FcCrawlV1Body,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  browserAvailable: boolean,
): CrawlSpec {
  const start = parseTargetUrl(body.url);
  if ('prompt' in body && body.prompt !== undefined) {
    refuse('prompt', 'crawl options generated from a prompt need an LLM; set the crawl fields instead');
  }
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
  return {
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
    page: scrapeOptionsOf(body.scrapeOptions ?? {}, 'scrapeOptions.', browserAvailable),
  };
}

/** A Firecrawl batch scrape as a crawl that follows nothing; invalid URLs are refused or listed. */
export function batchSpecOf(
  body: FcBatchBody,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  browserAvailable: boolean,
): { spec: CrawlSpec; invalidURLs: string[] | undefined } {
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
  return {
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
      page: scrapeOptionsOf(options, '', browserAvailable),
    },
    invalidURLs: ignoreInvalid ? invalid : undefined,
  };
}

/** A page as Firecrawl's document: the requested formats and Firecrawl's metadata names. */
export function firecrawlDocument(doc: PageDocument, sourceUrl: string): Record<string, unknown> {
  const { metadata: m, title: _t, description: _d, url: _u, ...formats } = doc;
  return {
    ...(formats as Record<string, unknown>),
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
      scrapeId: randomUUID(),
      proxyUsed: 'basic',
    },
  };
}
