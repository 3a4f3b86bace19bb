import { Type } from 'typebox';
import type { Static } from 'typebox';
import { PageFormatFields } from './page.js';
import { ClientTags, TargetUrl } from './common.js';
import { ScrapeOptionFields } from './scrape.js';

const Globs = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 100,
  description:
    'Glob patterns matched against the URL path, e.g. "/blog/**": *, **, ?, [...] classes, {a,b} braces, \\ escapes and a leading ! (picomatch semantics), run on a linear-time engine (RE2); extglobs such as +(a) are refused.',
});

export const CrawlBody = Type.Object(
  {
    url: TargetUrl,
    maxDepth: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, default: 2, description: 'Link depth followed.' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'Maximum pages crawled.' }),
    ),
    includePaths: Type.Optional(Globs),
    excludePaths: Type.Optional(Globs),
    allowBackwardLinks: Type.Optional(
      Type.Boolean({ default: false, description: 'Follow links outside the start URL path.' }),
    ),
    allowExternalLinks: Type.Optional(
      Type.Boolean({ default: false, description: 'Follow links to other hosts.' }),
    ),
    detectPagination: Type.Optional(Type.Boolean({ default: true, description: 'Follow pagination links.' })),
    maxPaginationPages: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1000,
        default: 50,
        description: 'Pagination pages followed at most.',
      }),
    ),
    ignoreSitemap: Type.Optional(Type.Boolean({ default: false, description: 'Do not seed from sitemaps.' })),
    useParallel: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Fetch several pages at once (per-host cap still applies).',
      }),
    ),
    ...ScrapeOptionFields,
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type CrawlBody = Static<typeof CrawlBody>;

export const CrawlPage = Type.Object({
  title: Type.String(),
  url: Type.String(),
  ...PageFormatFields,
  metadata: Type.Object({
    title: Type.String(),
    url: Type.String(),
    statusCode: Type.Integer(),
    contentType: Type.String(),
    wordCount: Type.Integer(),
    readingTime: Type.Integer(),
    attempts: Type.Optional(
      Type.Integer({
        minimum: 2,
        description:
          'Fetches of the page, the first included: present only when a transient failure was retried.',
      }),
    ),
  }),
});
export type CrawlPage = Static<typeof CrawlPage>;

const Attempts = Type.Integer({
  minimum: 0,
  description: 'Fetches of the page, the first included (0: never fetched, its host was paused).',
});

export const CrawlError = Type.Object({
  url: Type.String(),
  code: Type.String(),
  error: Type.String(),
  attempts: Attempts,
});

export const CrawlReply = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(CrawlPage),
  errors: Type.Array(CrawlError, { description: 'Pages that failed (not in data).' }),
});

export const CrawlEvent = Type.Union(
  [
    Type.Object({
      type: Type.Literal('status'),
      crawled: Type.Integer({ description: 'Pages crawled so far.' }),
      queued: Type.Integer({ description: 'URLs waiting in the frontier.' }),
      current_url: Type.String({ description: 'The URL being fetched now.' }),
      throttled: Type.Optional(
        Type.Array(
          Type.Object({
            host: Type.String({ description: 'host:port, as the crawl counts hosts.' }),
            until: Type.String({ description: 'ISO time until which every request to the host waits.' }),
          }),
          {
            description:
              'Hosts that answered 429 or 503 with Retry-After, held until then (present only while one is).',
          },
        ),
      ),
    }),
    Type.Object({ type: Type.Literal('document'), data: CrawlPage }),
    Type.Object({
      type: Type.Literal('error'),
      url: Type.String(),
      code: Type.String(),
      error: Type.String(),
      attempts: Attempts,
    }),
    Type.Object({
      type: Type.Literal('complete'),
      crawled: Type.Integer(),
      errors: Type.Integer(),
      discovered: Type.Integer({ description: 'Distinct URLs accepted into the frontier.' }),
      duration_ms: Type.Integer(),
      stopped: Type.Union([Type.String(), Type.Null()], {
        description: 'Why the crawl ended early ("limit"), null when it ran out of URLs.',
      }),
      skipped: Type.Object(
        {
          robots: Type.Integer({ description: 'Pages robots.txt disallows.' }),
          outOfScope: Type.Integer({
            description: 'Links outside includePaths/excludePaths or the host rules.',
          }),
          tooDeep: Type.Integer({ description: 'Links beyond maxDepth.' }),
          hostPaused: Type.Integer({
            description:
              'Pages not fetched because their host refused most of the last 20 (403, 429): each is also an error event with code HOST_PAUSED.',
          }),
        },
        { description: 'URLs left out, by reason (each is also a debug log line).' },
      ),
    }),
  ],
  { description: 'One Server-Sent Event of /api/v1/crawl/stream, sent as `data: <json>`.' },
);
export type CrawlEvent = Static<typeof CrawlEvent>;

export const MapBody = Type.Object(
  {
    url: TargetUrl,
    search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Keep URLs whose path contains this text.' }),
    ),
    includeSubdomains: Type.Optional(Type.Boolean({ default: true })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 5000 })),
    ignoreSitemap: Type.Optional(Type.Boolean({ default: false })),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 300000,
        default: 30000,
        description: 'Discovery budget (ms); what was found by then is returned.',
      }),
    ),
    headers: ScrapeOptionFields.headers,
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type MapBody = Static<typeof MapBody>;

export const MapReply = Type.Object({ success: Type.Literal(true), links: Type.Array(Type.String()) });
