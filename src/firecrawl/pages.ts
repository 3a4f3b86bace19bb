import type { Caller } from '../tenants/tenant.js';
import { MapTimeoutError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import type {
  FcMapLink,
  FcMapV1Body,
  FcMapV2Body,
  FcScrapeBody,
  FcSearchV1Body,
  FcSearchV2Body,
} from './schemas/pages.js';
import type { FcScrapeOptions } from './schemas/jobs.js';
import type { PageDocument } from '../schemas/page.js';
import { checkWaitFor, refuse, scrapeOptionsOf } from './page-options.js';
import { cacheKeyOf, cacheOnlyOf, cached, fromCacheOnly, keep, refuseCacheOnly } from './page-cache.js';
import { firecrawlScrapeError } from './scrape-failures.js';
import type { PageExtras } from './page-extras.js';
import type { Api } from './jobs.js';
import { firecrawlDocument, noEffectFields, noEffectWarning } from './options.js';
import type { FirecrawlDeps } from './deps.js';
import type { SearchPage } from '../operations/search.js';
import { rememberScrape } from './interact.js';

/** Hits a search asks the provider for at most (Firecrawl allows 100; our providers give 50). */
const MAX_SEARCH_RESULTS = 50;
/** Firecrawl v2's default `maxAge`: a page scraped in the last two days is answered from the cache. */
const V2_MAX_AGE_MS = 2 * 24 * 3600 * 1000;
/** Budget of the LLM formats (json, summary) of a call's pages, after the pages themselves. */
const LLM_TIMEOUT_MS = 60_000;

/** Joins the warnings that apply, or undefined. */
function warningOf(...parts: (string | undefined)[]): string | undefined {
  const given = parts.filter((p): p is string => p !== undefined && p !== '');
  return given.length > 0 ? given.join(' ') : undefined;
}

/** The scrape options of a Firecrawl body that also carries other fields (url, query, client tags). */
function pageOptionsOf(
  body: FcScrapeOptions & Record<string, unknown>,
  fc: FirecrawlDeps,
  api: Api,
  prefix = '',
) {
  const { url: _u, origin: _o, integration: _i, ...options } = body;
  return scrapeOptionsOf(options as FcScrapeOptions, prefix, fc.capabilities, api);
}

/**
 * A page as Firecrawl's document, with the fields the server's LLM writes when they were asked for (`tenant`:
 * whose page it is, for changeTracking).
 */
async function documentOf(
  fc: FirecrawlDeps,
  doc: PageDocument,
  sourceUrl: string,
  extras: PageExtras | null,
  deadline: Deadline,
  tenant: string,
): Promise<Record<string, unknown>> {
  if (!extras) return firecrawlDocument(doc, sourceUrl);
  const fields = await fc.extraFields(doc, sourceUrl, extras, deadline, tenant);
  const { dropMarkdown, dropRawHtml } = extras;
  return firecrawlDocument(doc, sourceUrl, { fields, dropMarkdown, dropRawHtml });
}

/**
 * POST /v1/scrape and /v2/scrape: one page as Firecrawl's document. A document cached within `maxAge`
 * (default 2 days in v2, 0 in v1, as Firecrawl) is answered without a fetch; `storeInCache: false` keeps the
 * fresh one out of the cache. With `minAge` or `lockdown` the answer comes from the cache or is a 404, never a
 * fetch.
 */
export async function fcScrape(
  fc: FirecrawlDeps,
  body: FcScrapeBody,
  api: Api,
  signal: AbortSignal,
  caller: Caller,
) {
  // v1's scrape has a timeout of 30 s when none is sent; the other routes bound waitFor by a sent one only.
  if (api === 'v1') checkWaitFor(body.waitFor, body.timeout ?? 30000, '');
  const { page, extras } = pageOptionsOf(body, fc, api);
  const ignored = noEffectFields(body).filter((f) => f !== 'maxAge');
  const warning = noEffectWarning(ignored);
  const tail = warning ? { warning } : {};
  const key = cacheKeyOf(body.url, page, extras, fc.shareCache ? null : caller.tenant);
  const only = cacheOnlyOf(body);
  if (only) {
    const hit = await fromCacheOnly(fc, key, only);
    await rememberScrape(fc, body.url, page, hit, caller);
    return { success: true as const, data: hit, ...tail };
  }
  const maxAge = body.maxAge ?? (api === 'v2' ? V2_MAX_AGE_MS : 0);
  if (key && maxAge > 0) {
    const hit = await cached(fc, key, maxAge);
    if (hit) {
      await rememberScrape(fc, body.url, page, hit, caller);
      return { success: true as const, data: hit, ...tail };
    }
  }
  const fetchedAt = Date.now();
  // The LLM formats get their own budget after the page's: a slow model does not cut the fetch short.
  const deadline = Deadline.after(page.timeout ?? 30000, signal);
  let doc: PageDocument;
  try {
    doc = await fc.services.scrape({ url: body.url, ...page }, deadline, caller);
  } catch (err) {
    throw firecrawlScrapeError(err);
  } finally {
    deadline.dispose();
  }
  const llmDeadline = Deadline.after(LLM_TIMEOUT_MS, signal);
  try {
    const data = await documentOf(fc, doc, body.url, extras, llmDeadline, caller.tenant);
    if (key) {
      (data.metadata as Record<string, unknown>).cacheState = 'miss';
      if (body.storeInCache !== false) await keep(fc, key, data, fetchedAt);
    }
    await rememberScrape(fc, body.url, page, data, caller);
    return { success: true as const, data, ...tail };
  } finally {
    llmDeadline.dispose();
  }
}

/** POST /v1/map and /v2/map: the site's URLs (v2 with the title and description of pages that were read). */
export async function fcMap(
  fc: FirecrawlDeps,
  body: FcMapV2Body | FcMapV1Body,
  api: Api,
  signal: AbortSignal,
  caller: Caller,
) {
  const v1 = api === 'v1' ? (body as FcMapV1Body) : null;
  const mode = v1
    ? v1.sitemapOnly
      ? 'only'
      : v1.ignoreSitemap
        ? 'skip'
        : 'include'
    : ((body as FcMapV2Body).sitemap ?? 'include');
  const deadline = Deadline.after(body.timeout ?? 30000, signal);
  // Only a caller-given `timeout` that runs out is Firecrawl's 408; without one, the links found are answered.
  const timedOut = () => body.timeout !== undefined && deadline.expired && !signal.aborted;
  try {
    const links = await fc.services
      .mapLinks(
        {
          url: body.url,
          search: body.search,
          includeSubdomains: body.includeSubdomains ?? true,
          limit: body.limit ?? 5000,
          ignoreSitemap: mode === 'skip',
          sitemapOnly: mode === 'only',
          ignoreQueryParameters: body.ignoreQueryParameters ?? true,
          timeout: body.timeout,
        },
        deadline,
        caller,
      )
      .catch((err: unknown) => {
        throw timedOut() ? new MapTimeoutError('Map timed out', { cause: err }) : err;
      });
    if (timedOut()) throw new MapTimeoutError('Map timed out');
    const ignored = [
      ['location', body.location !== undefined && Object.keys(body.location).length > 0],
      ['threatProtection', body.threatProtection !== undefined],
      ['auditMetadata', body.auditMetadata !== undefined],
    ]
      .filter(([, given]) => given)
      .map(([name]) => name as string);
    const warning = noEffectWarning(ignored);
    const tail = warning ? { warning } : {};
    if (v1) return { success: true as const, links: links.map((l) => l.url), ...tail };
    return { success: true as const, links: links as FcMapLink[], ...tail };
  } finally {
    deadline.dispose();
  }
}

/** A search hit as Firecrawl's result: url, title, description, and the page's formats when it was scraped. */
async function resultOf(
  fc: FirecrawlDeps,
  { hit, document, error }: SearchPage,
  extras: PageExtras | null,
  deadline: Deadline,
  tenant: string,
): Promise<Record<string, unknown>> {
  const base = { url: hit.url, title: hit.title, description: hit.snippet };
  if (document) return { ...base, ...(await documentOf(fc, document, hit.url, extras, deadline, tenant)) };
  if (error)
    return { ...base, metadata: { sourceURL: hit.url, url: hit.url, statusCode: 0, error: error.message } };
  return base;
}

const hostMatches = (url: string, domains: string[]): boolean => {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((d) => {
    const domain = d.toLowerCase().replace(/^\*\./, '');
    return host === domain || host.endsWith(`.${domain}`);
  });
};

/**
 * POST /v1/search and /v2/search: web results from the configured provider, each page scraped when
 * `scrapeOptions.formats` asks for any. What the provider cannot do (language, country, location, time
 * filters, news and image sources) is named in a `warning`, never a 400: the SDKs send some of it by default.
 */
export async function fcSearch(
  fc: FirecrawlDeps,
  body: FcSearchV2Body | FcSearchV1Body,
  api: Api,
  signal: AbortSignal,
  caller: Caller,
) {
  const v2 = api === 'v2' ? (body as FcSearchV2Body) : null;
  const options = body.scrapeOptions;
  if (options?.profile) refuse('scrapeOptions.profile', 'profiles apply to scrape, crawl and batch scrape');
  if (options) refuseCacheOnly(options as FcScrapeOptions, 'scrapeOptions.', 'a search');
  const scraping =
    options && (options.formats?.length ?? 0) > 0
      ? pageOptionsOf(options as FcScrapeOptions & Record<string, unknown>, fc, api, 'scrapeOptions.')
      : null;
  const page = scraping?.page ?? null;
  if (page && page.timeout === undefined && body.timeout !== undefined) {
    page.timeout = Math.min(body.timeout, 60_000);
  }
  const limit = body.limit ?? 5;
  const ignored: string[] = [];
  // The SDKs' defaults (lang "en", country "us") are not worth a warning on every call.
  if (body.lang && body.lang !== 'en') ignored.push('lang');
  if (body.country && body.country.toLowerCase() !== 'us') ignored.push('country');
  for (const field of ['location', 'tbs', 'filter'] as const) if (body[field]) ignored.push(field);
  const sources = (v2?.sources ?? []).map((s) => (typeof s === 'string' ? s : s.type));
  const otherSources = sources.filter((s) => s !== 'web');
  if (otherSources.length > 0) ignored.push(`sources (${otherSources.join(', ')}: only web results here)`);
  if ((v2?.categories?.length ?? 0) > 0) ignored.push('categories');
  for (const field of [
    'highlights',
    'enterprise',
    'toolDetail',
    'domainTools',
    'threatProtection',
  ] as const) {
    if (v2?.[field] !== undefined && v2[field] !== false) ignored.push(field);
  }
  if (limit > MAX_SEARCH_RESULTS) ignored.push(`limit above ${MAX_SEARCH_RESULTS}`);
  if (options) ignored.push(...noEffectFields(options, 'scrapeOptions.'));
  const pages = await fc.services.searchPages(
    body.query,
    Math.min(limit, MAX_SEARCH_RESULTS),
    page,
    signal,
    caller,
  );
  let results = pages;
  if (v2?.includeDomains?.length) results = results.filter((p) => hostMatches(p.hit.url, v2.includeDomains!));
  if (v2?.excludeDomains?.length)
    results = results.filter((p) => !hostMatches(p.hit.url, v2.excludeDomains!));
  const warning = warningOf(
    ignored.length > 0
      ? `Not available from this server's search provider, ignored: ${ignored.join(', ')}.`
      : undefined,
  );
  const llmDeadline = Deadline.after(LLM_TIMEOUT_MS, signal);
  let data: Record<string, unknown>[];
  try {
    const extras = scraping?.extras ?? null;
    data = await Promise.all(results.map((r) => resultOf(fc, r, extras, llmDeadline, caller.tenant)));
  } finally {
    llmDeadline.dispose();
  }
  const tail = warning ? { warning } : {};
  if (v2) return { success: true as const, data: { web: data }, ...tail };
  return { success: true as const, data, ...tail };
}

/** GET /v{1,2}/team/queue-status: the job engine's counts of the caller's tenant (an operator's: of all). */
export async function fcQueueStatus(fc: FirecrawlDeps, caller: Caller) {
  const q = await fc.services.jobs.queueStatus(caller);
  return {
    success: true as const,
    jobsInQueue: q.active + q.waiting,
    activeJobsInQueue: q.active,
    waitingJobsInQueue: q.waiting,
    maxConcurrency: q.maxConcurrency,
    mostRecentSuccess: q.mostRecentSuccess,
  };
}
