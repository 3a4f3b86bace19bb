import { Type } from 'typebox';
import type { Static } from 'typebox';
import { ClientFields, FcScrapeOptionFields, FcScrapeOptions } from './jobs.js';

/**
 * Firecrawl's one-call operations (scrape, map, search; v1 and v2) and its team endpoints, as
 * @mendable/firecrawl-js 4.x sends and reads them. What this server cannot do is refused with a 400 naming
 * the field, or named in a `warning` where the SDK sends the field by default (services/firecrawl-pages.ts).
 */

const Opt = Type.Optional;
const Str = (max = 1000) => Type.String({ maxLength: max });
const Url = Type.String({ minLength: 1, maxLength: 8192 });
const AnyObject = Type.Object({}, { additionalProperties: true });

export const FcScrapeBody = Type.Object(
  { url: Url, ...FcScrapeOptionFields, ...ClientFields },
  { additionalProperties: false },
);
export type FcScrapeBody = Static<typeof FcScrapeBody>;

export const FcScrapeReply = Type.Object({
  success: Type.Literal(true),
  data: AnyObject,
  warning: Opt(Type.String()),
});

const MapCommon = {
  url: Url,
  search: Opt(Str(500)),
  includeSubdomains: Opt(Type.Boolean()),
  ignoreQueryParameters: Opt(Type.Boolean()),
  limit: Opt(Type.Integer({ minimum: 1, maximum: 100000 })),
  timeout: Opt(Type.Integer({ minimum: 1, maximum: 300000 })),
  location: Opt(AnyObject),
  threatProtection: Opt(Type.Unknown()),
  auditMetadata: Opt(Type.Unknown()),
  ...ClientFields,
};

export const FcMapV2Body = Type.Object(
  { ...MapCommon, sitemap: Opt(Type.Enum(['include', 'only', 'skip'])) },
  { additionalProperties: false },
);
export type FcMapV2Body = Static<typeof FcMapV2Body>;

export const FcMapV1Body = Type.Object(
  { ...MapCommon, ignoreSitemap: Opt(Type.Boolean()), sitemapOnly: Opt(Type.Boolean()) },
  { additionalProperties: false },
);
export type FcMapV1Body = Static<typeof FcMapV1Body>;

export const FcMapLink = Type.Object({
  url: Type.String(),
  title: Opt(Type.String()),
  description: Opt(Type.String()),
});
export type FcMapLink = Static<typeof FcMapLink>;

export const FcMapV2Reply = Type.Object({
  success: Type.Literal(true),
  links: Type.Array(FcMapLink),
  warning: Opt(Type.String()),
});
export const FcMapV1Reply = Type.Object({
  success: Type.Literal(true),
  links: Type.Array(Type.String()),
  warning: Opt(Type.String()),
});

const SearchSource = Type.Union([
  Type.Enum(['web', 'news', 'images', 'alexandria']),
  Type.Object({ type: Type.Enum(['web', 'news', 'images', 'alexandria']) }, { additionalProperties: true }),
]);

const SearchCommon = {
  query: Type.String({ minLength: 1, maxLength: 500 }),
  limit: Opt(Type.Integer({ minimum: 1, maximum: 100 })),
  tbs: Opt(Type.Union([Str(200), Type.Null()])),
  filter: Opt(Type.Union([Str(500), Type.Null()])),
  lang: Opt(Type.Union([Str(20), Type.Null()])),
  country: Opt(Type.Union([Str(20), Type.Null()])),
  location: Opt(Type.Union([Str(500), Type.Null()])),
  timeout: Opt(Type.Integer({ minimum: 1, maximum: 600000 })),
  ignoreInvalidURLs: Opt(Type.Boolean()),
  scrapeOptions: Opt(FcScrapeOptions),
  ...ClientFields,
};

export const FcSearchV2Body = Type.Object(
  {
    ...SearchCommon,
    sources: Opt(Type.Array(SearchSource, { maxItems: 4 })),
    categories: Opt(Type.Array(Type.Unknown(), { maxItems: 10 })),
    includeDomains: Opt(Type.Array(Str(500), { maxItems: 100 })),
    excludeDomains: Opt(Type.Array(Str(500), { maxItems: 100 })),
    highlights: Opt(Type.Boolean()),
    enterprise: Opt(Type.Array(Str(20), { maxItems: 3 })),
    toolDetail: Opt(Str(20)),
    domainTools: Opt(Type.Boolean()),
    threatProtection: Opt(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type FcSearchV2Body = Static<typeof FcSearchV2Body>;

export const FcSearchV1Body = Type.Object(SearchCommon, { additionalProperties: false });
export type FcSearchV1Body = Static<typeof FcSearchV1Body>;

export const FcSearchV2Reply = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ web: Type.Array(AnyObject) }, { additionalProperties: true }),
  warning: Opt(Type.String()),
});
export const FcSearchV1Reply = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(AnyObject),
  warning: Opt(Type.String()),
});

export const FcQueueStatusReply = Type.Object({
  success: Type.Literal(true),
  jobsInQueue: Type.Integer(),
  activeJobsInQueue: Type.Integer(),
  waitingJobsInQueue: Type.Integer(),
  maxConcurrency: Type.Integer(),
  mostRecentSuccess: Type.Union([Type.String(), Type.Null()]),
});

export const FcConcurrencyReply = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ concurrency: Type.Integer(), maxConcurrency: Type.Integer() }),
});
