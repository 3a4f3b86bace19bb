import { createHash, randomUUID } from 'node:crypto';
import { normalizeUrl } from '../crawl/normalize.js';
import { LockdownCacheMissError, NoCachedDataError, toAppError } from '../errors.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import { creditsOf } from '../tenants/credits.js';
import type { CreditedMetadata } from '../tenants/credits.js';
import type { FirecrawlDeps } from './deps.js';
import type { PageExtras } from './page-extras.js';
import { refuse } from './page-options.js';
import type { FcScrapeOptions } from './schemas/jobs.js';

/** Documents cached at most this large (JSON characters; a full-page screenshot can be megabytes). */
const MAX_CACHED_CHARS = 5_000_000;
/** Firecrawl's `maxAge` under `lockdown` when none is given: two years (730 days). */
const LOCKDOWN_MAX_AGE_MS = 730 * 24 * 3600 * 1000;

/** Firecrawl's messages for a cache-only scrape that found nothing: programs may show or match them. */
const NO_CACHED_DATA =
  'No cached data is available for this URL that meets your specified age requirements. This error occurs when ' +
  'you use the minAge parameter to request only cached data, but Firecrawl has no cached version of this URL ' +
  '(or no version within the specified age range). To resolve this, either remove the minAge parameter to ' +
  'allow a fresh scrape, or try again later after the URL has been scraped and cached.';
const LOCKDOWN_MISS =
  'No cached data is available for this request in lockdown mode. Lockdown mode only serves previously cached ' +
  'responses and never makes outbound requests. To resolve this, either disable lockdown mode to allow a fresh ' +
  'scrape, or try again after the URL has been scraped and cached.';

/**
 * The cache key of a scrape: the page, every option that shapes its document, and the tenant whose cache it
 * is (`tenant`; null when SHARE_CACHE_ACROSS_TENANTS makes one cache of all): a page fetched with one tenant's
 * headers is never another's hit. Pages whose document depends on more than the URL and options (actions,
 * change tracking, a profile's cookies) are never cached.
 */
export function cacheKeyOf(
  url: string,
  page: ScrapeOptions,
  extras: PageExtras | null,
  tenant: string | null,
): string | null {
  if ((page.actions?.length ?? 0) > 0 || extras?.changeTracking || page.profile) return null;
  const options = JSON.stringify({
    url: normalizeUrl(url) ?? url,
    page,
    extras,
    ...(tenant ? { tenant } : {}),
  });
  return `cache:${createHash('sha256').update(options).digest('hex')}`;
}

/**
 * A cached document aged between `minAge` and `maxAge`, or null (a store that fails is a miss, logged).
 */
export async function cached(
  fc: FirecrawlDeps,
  key: string,
  maxAge: number,
  minAge = 0,
): Promise<Record<string, unknown> | null> {
  try {
    const hit = await fc.pages.get(key);
    const age = hit ? Date.now() - hit.at : 0;
    if (!hit || age > maxAge || age < minAge) return null;
    const data = JSON.parse(hit.body) as { metadata: Record<string, unknown> };
    data.metadata = {
      ...data.metadata,
      scrapeId: randomUUID(),
      cacheState: 'hit',
      cachedAt: new Date(hit.at).toISOString(),
    };
    return data;
  } catch (err) {
    fc.log.warn({ op: 'cache', reason: toAppError(err).message }, 'cache not read');
    return null;
  }
}

/** Keeps a fresh document for later scrapes with `maxAge`; a page that failed at its server is not kept. */
export async function keep(
  fc: FirecrawlDeps,
  key: string,
  data: Record<string, unknown>,
  at: number,
): Promise<void> {
  const body = JSON.stringify(data);
  const status = (data.metadata as { statusCode?: number }).statusCode ?? 0;
  if (status >= 400 || body.length > MAX_CACHED_CHARS) return;
  await fc.pages.put(key, body, at).catch((err: unknown) => {
    fc.log.warn({ op: 'cache', reason: toAppError(err).message }, 'page not cached');
  });
}

/** How a scrape that must not fetch reads the cache: the ages a document may have, and whose miss it is. */
export interface CacheOnly {
  minAge: number;
  maxAge: number;
  lockdown: boolean;
}

/**
 * The cache-only rule of a scrape, or null when it may fetch: `minAge` (any age from it up, capped by `maxAge`
 * when given) and `lockdown` (within `maxAge`, two years when not given) never make an outbound request.
 */
export function cacheOnlyOf(o: FcScrapeOptions): CacheOnly | null {
  if (!o.lockdown && o.minAge === undefined) return null;
  const lockdown = o.lockdown === true;
  const maxAge = o.maxAge ?? (lockdown ? LOCKDOWN_MAX_AGE_MS : Number.POSITIVE_INFINITY);
  return { minAge: o.minAge ?? 0, maxAge, lockdown };
}

/**
 * The answer of a cache-only scrape: the cached document (a lockdown hit is charged as Firecrawl charges it),
 * or Firecrawl's 404 for the rule that missed. A page that is never cached (`key` null) always misses.
 */
export async function fromCacheOnly(
  fc: FirecrawlDeps,
  key: string | null,
  only: CacheOnly,
): Promise<Record<string, unknown>> {
  const hit = key ? await cached(fc, key, only.maxAge, only.minAge) : null;
  if (!hit)
    throw only.lockdown ? new LockdownCacheMissError(LOCKDOWN_MISS) : new NoCachedDataError(NO_CACHED_DATA);
  if (only.lockdown) {
    const metadata = hit.metadata as CreditedMetadata & Record<string, unknown>;
    metadata.creditsUsed = creditsOf(metadata, { lockdown: true });
  }
  return hit;
}

/**
 * `minAge` and `lockdown` on the pages of a crawl, batch or search: a 400, as their pages are fetched (a crawl
 * finds its links on fetched pages); the caller learns it before any page is, instead of a silent fetch.
 */
export function refuseCacheOnly(o: FcScrapeOptions, prefix: string, where: string): void {
  const why = `answers from the cache only, which /scrape does; ${where} fetches its pages`;
  if (o.minAge !== undefined) refuse(`${prefix}minAge`, why);
  if (o.lockdown) refuse(`${prefix}lockdown`, why);
}
