import { BadRequestError, NotFoundError } from '../errors.js';
import type { JobKind, JobRecord } from '../jobs/stores/job-store.js';
import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import type {
  FcBatchBody,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcExtractBody,
  FcLlmsTxtBody,
} from './schemas/jobs.js';
import type { FirecrawlDeps } from './deps.js';
import { batchSpecOf, crawlSpecOf, noEffectFields, noEffectWarning, webhookOf } from './options.js';
import { extractRequestOf, llmsTxtRequestOf } from './tasks.js';
import { withPromptOptions } from './crawl-prompt.js';
import { callerSpellings } from './job-ports.js';
import type { FirecrawlCrawlRequest } from './job-ports.js';

export type Api = 'v1' | 'v2';

/** Documents per status page at most (by size), as Firecrawl pages them. */
const PAGE_BYTES = 10 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where this request was addressed (scheme and Host), for the absolute URLs Firecrawl answers with. */
export interface Origin {
  protocol: string;
  host: string;
}

const base = (o: Origin): string => `${o.protocol}://${o.host}`;
const PATH: Record<'crawl' | 'batch_scrape', string> = { crawl: 'crawl', batch_scrape: 'batch/scrape' };

/**
 * The job `id` of kind `kinds` that `caller` may read, or Firecrawl's 404 (another tenant's job included; v2 also
 * refuses ids that are not UUIDs with a 400).
 */
async function jobOf(
  fc: FirecrawlDeps,
  id: string,
  kinds: JobKind[],
  api: Api,
  caller: Caller,
): Promise<JobRecord> {
  if (!UUID.test(id)) {
    if (api === 'v2') throw new BadRequestError('Invalid job ID: not a UUID');
    throw new NotFoundError('Job not found');
  }
  const job = await fc.services.jobs.get(id, caller).catch((err: unknown) => {
    if (err instanceof NotFoundError) return null;
    throw err;
  });
  if (!job || !kinds.includes(job.kind)) throw new NotFoundError('Job not found');
  return job;
}

/**
 * A crawl job of the caller's tenant, its `prompt` first turned into crawl options by the server's LLM
 * (`signal`: the caller left).
 */
export async function startCrawl(
  fc: FirecrawlDeps,
  requested: FcCrawlV2Body | FcCrawlV1Body,
  api: Api,
  origin: Origin,
  caller: Caller,
  signal?: AbortSignal,
) {
  const { body, report, warning } = await withPromptOptions(requested, api, fc, signal);
  const { settings } = fc;
  const { spec, extras } = crawlSpecOf(body, api, settings, fc.capabilities);
  const {
    url: _u,
    webhook: _w,
    origin: _o,
    integration: _i,
    ...options
  } = body as FcCrawlV2Body & Record<string, unknown>;
  const request: FirecrawlCrawlRequest = {
    spec,
    extras,
    api,
    webhook: webhookOf(body.webhook),
    url: body.url,
    // Headers sent to the target (cookies, tokens) are never listed back.
    options: { ...options, scrapeOptions: { ...body.scrapeOptions, headers: undefined } },
    warning:
      [
        noEffectWarning([
          ...noEffectFields(body),
          ...noEffectFields(body.scrapeOptions ?? {}, 'scrapeOptions.'),
        ]),
        warning,
      ]
        .filter(Boolean)
        .join('. ') || undefined,
  };
  const job = await fc.services.jobs.startCrawl('crawl', request, caller.tenant);
  return { success: true as const, id: job.id, url: `${base(origin)}/${api}/crawl/${job.id}`, ...report };
}

export async function startBatch(
  fc: FirecrawlDeps,
  body: FcBatchBody,
  api: Api,
  origin: Origin,
  caller: Caller,
) {
  const { spec, extras, invalidURLs } = batchSpecOf(body, api, fc.settings, fc.capabilities);
  const request: FirecrawlCrawlRequest = {
    spec,
    extras,
    api,
    webhook: webhookOf(body.webhook),
    url: spec.seeds[0]!,
    sourceUrls: callerSpellings(body.urls),
    warning: noEffectWarning(noEffectFields(body)),
  };
  const job = await fc.services.jobs.startCrawl('batch_scrape', request, caller.tenant);
  return {
    success: true as const,
    id: job.id,
    url: `${base(origin)}/${api}/batch/scrape/${job.id}`,
    ...(invalidURLs !== undefined ? { invalidURLs } : {}),
  };
}

/**
 * A crawl or batch job's status with one page of its documents. `next` (absolute, with `skip`) is present only
 * when more documents are stored after this page: never with empty data, absent (not null) on the last page.
 */
export async function jobStatus(
  fc: FirecrawlDeps,
  id: string,
  kinds: ('crawl' | 'batch_scrape')[],
  api: Api,
  query: { skip?: string; limit?: string },
  origin: Origin,
  caller: Caller,
) {
  const job = await jobOf(fc, id, kinds, api, caller);
  const skip = Number(query.skip ?? 0);
  const limit = query.limit === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(query.limit));
  const page = await fc.services.jobs.documents(id, skip, limit, PAGE_BYTES);
  const data = page.documents.map((d) => JSON.parse(d) as Record<string, unknown>);
  let next: string | undefined;
  if (page.more && data.length > 0) {
    const params = new URLSearchParams({ skip: String(page.nextSkip) });
    if (query.limit !== undefined) params.set('limit', String(limit));
    next = `${base(origin)}/${api}/${PATH[job.kind as 'crawl' | 'batch_scrape']}/${id}?${params}`;
  }
  const warning = await fc.services.jobs.warningFor(job);
  return {
    success: true as const,
    status: job.state,
    ...(warning ? { warning } : {}),
    total: Math.max(job.total, job.completed),
    completed: job.completed,
    // 1 a completed page: summing the documents' own creditsUsed (PDF pages, json) would read every one.
    creditsUsed: job.completed,
    expiresAt: new Date(job.expiresAt).toISOString(),
    ...(next ? { next } : {}),
    ...(job.state === 'failed' && job.error ? { error: job.error } : {}),
    data,
  };
}

export async function jobErrors(
  fc: FirecrawlDeps,
  id: string,
  kinds: ('crawl' | 'batch_scrape')[],
  api: Api,
  caller: Caller,
) {
  await jobOf(fc, id, kinds, api, caller);
  const [errors, robotsBlocked] = await Promise.all([
    fc.services.jobs.errors(id),
    fc.services.jobs.robotsBlocked(id),
  ]);
  return {
    errors: errors.map((e) => ({
      id: e.id,
      timestamp: new Date(e.at).toISOString(),
      url: e.url,
      code: e.code,
      error: e.error,
    })),
    robotsBlocked,
  };
}

export async function cancelJob(fc: FirecrawlDeps, id: string, kinds: JobKind[], api: Api, caller: Caller) {
  await jobOf(fc, id, kinds, api, caller);
  await fc.services.jobs.cancel(id, caller);
  return { success: true as const, status: 'cancelled' as const };
}

/**
 * A crawl's options in the names of the API version that lists them: the few Firecrawl renamed in v2
 * (`allowBackwardLinks` is `crawlEntireDomain`, `ignoreSitemap` is `sitemap`; v1's `maxDepth` has no v2 name).
 */
function optionsIn(options: Record<string, unknown>, from: Api, to: Api): Record<string, unknown> {
  if (from === to) return options;
  const { allowBackwardLinks, ignoreSitemap, maxDepth: _d, crawlEntireDomain, sitemap, ...same } = options;
  if (to === 'v2') {
    return {
      ...same,
      ...(allowBackwardLinks !== undefined ? { crawlEntireDomain: allowBackwardLinks } : {}),
      ...(ignoreSitemap !== undefined ? { sitemap: ignoreSitemap ? 'skip' : 'include' } : {}),
    };
  }
  return {
    ...same,
    ...(crawlEntireDomain !== undefined ? { allowBackwardLinks: crawlEntireDomain } : {}),
    ...(sitemap !== undefined ? { ignoreSitemap: sitemap === 'skip' } : {}),
  };
}

/**
 * Running crawls (not batch scrapes, not ended ones): the caller's tenant's; an operator's, those of `tenant`
 * or every tenant's. Their options are the ones the caller sent, in the names of `api`.
 */
export async function activeCrawls(fc: FirecrawlDeps, caller: Caller, api: Api, tenant?: string) {
  const owner = listedOwner(caller, tenant);
  const jobs = await fc.services.jobs.active(owner === undefined ? {} : { owner });
  return {
    success: true as const,
    crawls: jobs
      .filter((j) => j.kind === 'crawl')
      .map((j) => {
        const request = j.request as FirecrawlCrawlRequest;
        return {
          id: j.id,
          teamId: j.owner, // the tenant: Firecrawl's team
          url: request.url,
          created_at: new Date(j.createdAt).toISOString(),
          options: optionsIn(request.options ?? {}, request.api, api),
        };
      }),
  };
}

export async function startExtract(fc: FirecrawlDeps, body: FcExtractBody, api: Api, caller: Caller) {
  const { request, invalidURLs, warning } = extractRequestOf(body, api, fc.serverLlm);
  const job = await fc.services.jobs.startTask('extract', request, caller.tenant);
  return {
    success: true as const,
    id: job.id,
    urlTrace: [],
    ...(invalidURLs ? { invalidURLs } : {}),
    ...(warning ? { warning } : {}),
  };
}

export async function startLlmsTxt(fc: FirecrawlDeps, body: FcLlmsTxtBody, caller: Caller) {
  const job = await fc.services.jobs.startTask('llmstxt', llmsTxtRequestOf(body), caller.tenant);
  const warning = noEffectWarning([...noEffectFields(body), ...(body.cache !== undefined ? ['cache'] : [])]);
  return { success: true as const, id: job.id, ...(warning ? { warning } : {}) };
}

/**
 * An extract or llms.txt job's status, Firecrawl's way: `processing` while it runs; no `error` key unless it
 * failed (the v1 SDK treats any `error` key as a failure).
 */
export async function taskStatus(
  fc: FirecrawlDeps,
  id: string,
  kind: 'extract' | 'llmstxt',
  api: Api,
  caller: Caller,
) {
  const job = await jobOf(fc, id, [kind], api, caller).catch((err: unknown) => {
    if (err instanceof NotFoundError) {
      throw new NotFoundError(
        kind === 'extract' ? 'Extract job not found' : 'llmsTxt generation job not found',
      );
    }
    throw err;
  });
  const status: 'processing' | 'completed' | 'failed' | 'cancelled' =
    job.state === 'scraping' ? 'processing' : job.state;
  return {
    success: job.state !== 'failed',
    status,
    data: job.result ?? (kind === 'extract' ? [] : {}),
    ...(job.state === 'failed' ? { error: job.error ?? 'failed' } : {}),
    expiresAt: new Date(job.expiresAt).toISOString(),
    ...(kind === 'extract' ? { creditsUsed: 0, tokensUsed: 0 } : {}),
  };
}
