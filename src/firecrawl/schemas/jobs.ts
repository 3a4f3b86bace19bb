import { Type } from 'typebox';
import type { Static } from 'typebox';
import { RequestHeaders } from '../../schemas/common.js';
import { ProfileOption } from '../../schemas/profile.js';

/**
 * Firecrawl's request shapes (v1 and v2 REST APIs, as @mendable/firecrawl-js 4.x sends them). Every field the
 * SDKs send is listed; what this server cannot do is refused with a 400 naming the field by the mapping in
 * services/firecrawl-options.ts (never silently ignored); fields outside Firecrawl's API are 400s here.
 */

const Str = (max = 1000) => Type.String({ maxLength: max });
const Bool = () => Type.Boolean();
const Opt = Type.Optional;

export const FcFormat = Type.Union([
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Object({ type: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: true }),
]);

export const FcAction = Type.Object(
  { type: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: true },
);

/** Scrape options common to v1 and v2 (the v2 defaults apply where the versions differ). */
export const FcScrapeOptionFields = {
  formats: Opt(Type.Array(FcFormat, { maxItems: 20 })),
  onlyMainContent: Opt(Bool()),
  includeTags: Opt(Type.Array(Str(), { maxItems: 100 })),
  excludeTags: Opt(Type.Array(Str(), { maxItems: 100 })),
  headers: Opt(RequestHeaders),
  waitFor: Opt(Type.Integer({ minimum: 0, maximum: 300000 })),
  timeout: Opt(Type.Integer({ minimum: 1, maximum: 300000 })),
  mobile: Opt(Bool()),
  skipTlsVerification: Opt(Bool()),
  removeBase64Images: Opt(Bool()),
  blockAds: Opt(Bool()),
  proxy: Opt(Str(50)),
  maxAge: Opt(Type.Integer({ minimum: 0 })),
  minAge: Opt(Type.Integer({ minimum: 0 })),
  storeInCache: Opt(Bool()),
  fastMode: Opt(Bool()),
  useMock: Opt(Str(200)),
  actions: Opt(Type.Array(FcAction, { maxItems: 50 })),
  location: Opt(Type.Object({}, { additionalProperties: true })),
  geolocation: Opt(Type.Object({}, { additionalProperties: true })),
  parsers: Opt(Type.Array(Type.Unknown(), { maxItems: 10 })),
  parsePDF: Opt(Bool()),
  jsonOptions: Opt(Type.Object({}, { additionalProperties: true })),
  extract: Opt(Type.Object({}, { additionalProperties: true })),
  changeTrackingOptions: Opt(Type.Object({}, { additionalProperties: true })),
  lockdown: Opt(Bool()),
  redactPII: Opt(Bool()),
  threatProtection: Opt(Type.Unknown()),
  auditMetadata: Opt(Type.Unknown()),
  profile: Opt(ProfileOption),
  zeroDataRetention: Opt(Bool()),
  // Firecrawl's internal and experimental switches (v1's `__experimental_cache`, v2's `__experimental_engpicker`
  // accepted on both): named in the `warning`, as they change nothing here.
  __experimental_omce: Opt(Bool()),
  __experimental_omceDomain: Opt(Str(500)),
  __searchPreviewToken: Opt(Str(500)),
  __experimental_cache: Opt(Bool()),
  __forceFirePDF: Opt(Bool()),
  __experimental_engpicker: Opt(Bool()),
};

export const FcScrapeOptions = Type.Object(FcScrapeOptionFields, { additionalProperties: false });
export type FcScrapeOptions = Static<typeof FcScrapeOptions>;

export const FcWebhook = Type.Union([
  Type.String({ minLength: 1, maxLength: 2000 }),
  Type.Object(
    {
      url: Type.String({ minLength: 1, maxLength: 2000 }),
      headers: Opt(Type.Record(Str(256), Str(8192), { maxProperties: 64 })),
      metadata: Opt(Type.Object({}, { additionalProperties: true })),
      events: Opt(Type.Array(Type.Enum(['started', 'page', 'completed', 'failed']), { maxItems: 4 })),
    },
    { additionalProperties: false },
  ),
]);
export type FcWebhook = Static<typeof FcWebhook>;

export const ClientFields = {
  origin: Opt(Str(200)),
  integration: Opt(Type.Union([Str(200), Type.Null()])),
  zeroDataRetention: Opt(Bool()),
};

const CrawlCommon = {
  url: Type.String({ minLength: 1, maxLength: 8192 }),
  includePaths: Opt(Type.Array(Str(), { maxItems: 100 })),
  excludePaths: Opt(Type.Array(Str(), { maxItems: 100 })),
  maxDiscoveryDepth: Opt(Type.Integer({ minimum: 0, maximum: 1000 })),
  limit: Opt(Type.Integer({ minimum: 1 })),
  crawlEntireDomain: Opt(Bool()),
  allowExternalLinks: Opt(Bool()),
  allowSubdomains: Opt(Bool()),
  ignoreRobotsTxt: Opt(Bool()),
  robotsUserAgent: Opt(Str(200)),
  deduplicateSimilarURLs: Opt(Bool()),
  ignoreQueryParameters: Opt(Bool()),
  regexOnFullURL: Opt(Bool()),
  delay: Opt(Type.Number({ minimum: 0, maximum: 600 })),
  maxConcurrency: Opt(Type.Integer({ minimum: 1, maximum: 1000 })),
  webhook: Opt(FcWebhook),
  scrapeOptions: Opt(FcScrapeOptions),
  ...ClientFields,
};

export const FcCrawlV2Body = Type.Object(
  {
    ...CrawlCommon,
    prompt: Opt(Str(10000)),
    sitemap: Opt(Type.Enum(['include', 'skip', 'only'])),
  },
  { additionalProperties: false },
);
export type FcCrawlV2Body = Static<typeof FcCrawlV2Body>;

export const FcCrawlV1Body = Type.Object(
  {
    ...CrawlCommon,
    maxDepth: Opt(Type.Integer({ minimum: 0, maximum: 1000 })),
    allowBackwardLinks: Opt(Bool()),
    ignoreSitemap: Opt(Bool()),
    // Beyond Firecrawl's v1: v2's crawl options from a prompt, derived with v1's names.
    prompt: Opt(Str(10000)),
  },
  { additionalProperties: false },
);
export type FcCrawlV1Body = Static<typeof FcCrawlV1Body>;

export const FcParamsPreviewBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192 }),
    prompt: Type.String({ minLength: 1, maxLength: 10000 }),
    origin: ClientFields.origin,
    integration: ClientFields.integration,
  },
  { additionalProperties: false },
);
export type FcParamsPreviewBody = Static<typeof FcParamsPreviewBody>;

export const FcBatchBody = Type.Object(
  {
    urls: Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { minItems: 1, maxItems: 1000 }),
    ...FcScrapeOptionFields,
    webhook: Opt(FcWebhook),
    appendToId: Opt(Str(100)),
    ignoreInvalidURLs: Opt(Bool()),
    maxConcurrency: Opt(Type.Integer({ minimum: 1, maximum: 1000 })),
    agent: Opt(Type.Unknown()),
    ...ClientFields,
  },
  { additionalProperties: false },
);
export type FcBatchBody = Static<typeof FcBatchBody>;

export const FcExtractBody = Type.Object(
  {
    urls: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { maxItems: 10 })),
    prompt: Opt(Str(10000)),
    systemPrompt: Opt(Str(10000)),
    schema: Opt(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Boolean()])),
    limit: Opt(Type.Integer({ minimum: 1 })),
    ignoreSitemap: Opt(Bool()),
    includeSubdomains: Opt(Bool()),
    allowExternalLinks: Opt(Bool()),
    enableWebSearch: Opt(Bool()),
    showSources: Opt(Bool()),
    ignoreInvalidURLs: Opt(Bool()),
    scrapeOptions: Opt(FcScrapeOptions),
    urlTrace: Opt(Bool()),
    timeout: Opt(Type.Integer({ minimum: 1, maximum: 600000 })),
    agent: Opt(Type.Unknown()),
    webhook: Opt(FcWebhook),
    threatProtection: Opt(Type.Unknown()),
    __experimental_streamSteps: Opt(Bool()),
    __experimental_llmUsage: Opt(Bool()),
    __experimental_showSources: Opt(Bool()),
    __experimental_showCostTracking: Opt(Bool()),
    __experimental_cacheKey: Opt(Str(500)),
    __experimental_cacheMode: Opt(Type.Enum(['direct', 'save', 'load'])),
    ...ClientFields,
  },
  { additionalProperties: false },
);
export type FcExtractBody = Static<typeof FcExtractBody>;

export const FcLlmsTxtBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192 }),
    maxUrls: Opt(Type.Integer({ minimum: 1, maximum: 500 })),
    showFullText: Opt(Bool()),
    cache: Opt(Bool()),
    __experimental_stream: Opt(Bool()),
    ...ClientFields,
  },
  { additionalProperties: false },
);
export type FcLlmsTxtBody = Static<typeof FcLlmsTxtBody>;

export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Query strings are text (the service never coerces types): digits only, read as numbers by the route. */
const Digits = (description: string) => Type.String({ pattern: '^[0-9]{1,9}$', description });

export const StatusQuery = Type.Object(
  {
    skip: Opt(Digits('Documents to skip (what `next` carries).')),
    limit: Opt(Digits('Documents in this page at most (also bounded by ~10 MiB).')),
  },
  { additionalProperties: false },
);
export type StatusQuery = Static<typeof StatusQuery>;

const AnyObject = Type.Object({}, { additionalProperties: true });

export const FcStartReply = Type.Object(
  {
    success: Type.Literal(true),
    id: Type.String(),
    url: Type.String(),
    invalidURLs: Opt(Type.Array(Type.String())),
    promptGeneratedOptions: Opt(
      Type.Object(
        {},
        { additionalProperties: true, description: 'The crawl options the LLM derived from `prompt`.' },
      ),
    ),
    finalCrawlerOptions: Opt(
      Type.Object({}, { additionalProperties: true, description: 'The crawl options the crawl runs with.' }),
    ),
  },
  { additionalProperties: false },
);

export const FcParamsPreviewReply = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ url: Type.String() }, { additionalProperties: true }),
    warning: Opt(Type.String({ description: 'The fields the LLM answered that were dropped, and why.' })),
  },
  { additionalProperties: false },
);

export const FcStatusReply = Type.Object(
  {
    success: Type.Literal(true),
    status: Type.Enum(['scraping', 'completed', 'failed', 'cancelled']),
    total: Type.Integer(),
    completed: Type.Integer(),
    creditsUsed: Type.Integer(),
    expiresAt: Type.String(),
    next: Opt(Type.String({ description: 'Absolute URL of the next page; absent on the last page.' })),
    error: Opt(Type.String()),
    warning: Opt(
      Type.String({ description: 'Why a running job may not be moving (no worker process alive).' }),
    ),
    data: Type.Array(AnyObject),
  },
  { additionalProperties: false },
);

export const FcErrorsReply = Type.Object({
  errors: Type.Array(
    Type.Object({
      id: Type.String(),
      timestamp: Type.String(),
      url: Type.String(),
      code: Type.String(),
      error: Type.String(),
    }),
  ),
  robotsBlocked: Type.Array(Type.String()),
});

export const FcCancelReply = Type.Object({ success: Type.Literal(true), status: Type.Literal('cancelled') });

export const FcActiveReply = Type.Object({
  success: Type.Literal(true),
  crawls: Type.Array(
    Type.Object({
      id: Type.String(),
      teamId: Type.String(),
      url: Type.String(),
      created_at: Type.String(),
      options: AnyObject,
    }),
  ),
});

export const FcTaskStatusReply = Type.Object(
  {
    success: Type.Boolean(),
    status: Type.Enum(['processing', 'completed', 'failed', 'cancelled']),
    data: Type.Unknown(),
    error: Opt(Type.String()),
    expiresAt: Type.String(),
    creditsUsed: Opt(Type.Integer()),
    tokensUsed: Opt(Type.Integer()),
  },
  { additionalProperties: false },
);

export const FcErrorReply = Type.Object({
  success: Type.Literal(false),
  code: Opt(Type.String()),
  error: Type.String(),
  details: Opt(
    Type.Array(
      Type.Object({
        code: Type.String(),
        path: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        message: Type.String(),
      }),
      { description: "The failed checks by field, as Firecrawl's zod issues (400 only)." },
    ),
  ),
});
