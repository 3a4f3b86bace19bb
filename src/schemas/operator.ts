import { Type } from 'typebox';
import type { Static } from 'typebox';

/**
 * `?tenant=` of a list: an operator's list shows that tenant's records only; any other key's lists are its own
 * tenant's, whatever it names.
 */
export const TenantFilter = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$',
  description: "Operators only: list this tenant's records (other keys always list their own).",
});

/** One job in the jobs view. */
export const JobSummary = Type.Object({
  id: Type.String(),
  /** The tenant the job is for. */
  owner: Type.String(),
  kind: Type.Union([
    Type.Literal('crawl'),
    Type.Literal('batch_scrape'),
    Type.Literal('extract'),
    Type.Literal('llmstxt'),
    Type.Literal('agent'),
    Type.Literal('monitor_check'),
  ]),
  state: Type.Union([
    Type.Literal('scraping'),
    Type.Literal('completed'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
  ]),
  /** The crawl's start URL, a batch's first URL, extract's first URL, llms.txt's site. */
  url: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer(),
  completed: Type.Integer(),
  /** Documents per second from the job's start to its end (or to now while it runs). */
  pagesPerSecond: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  /** The Firecrawl status route of the job (documents, result); errors at statusUrl + '/errors' for crawls and batches. */
  statusUrl: Type.String(),
});
export type JobSummary = Static<typeof JobSummary>;

/** Query strings are text (types are never coerced): digits, 1..500 checked by the route. */
export const JobListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,3}$', description: 'Jobs to list, 1..500 (default 100).' }),
    ),
    tenant: Type.Optional(TenantFilter),
  },
  { additionalProperties: false },
);
export type JobListQuery = Static<typeof JobListQuery>;

export const JobListReply = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(JobSummary),
  /** Who asked: its tenant, and whether it is an operator (who sees every tenant's jobs and may filter them). */
  caller: Type.Object({ tenant: Type.String(), admin: Type.Boolean() }),
});

/** What the service is doing now: the operators' health view. */
export const ServiceStatus = Type.Object({
  /** `embedded` (one process, SQLite) or `distributed` (Redis and BullMQ). */
  mode: Type.Union([Type.Literal('embedded'), Type.Literal('distributed')]),
  /** Null when healthy, else why not (the text `/health` answers with its 503). */
  problem: Type.Union([Type.String(), Type.Null()]),
  uptimeSeconds: Type.Number(),
  /** Worker processes alive in the fleet; null in the embedded mode (this process works the jobs). */
  workers: Type.Union([Type.Integer(), Type.Null()]),
  queue: Type.Object({
    active: Type.Integer(),
    waiting: Type.Integer(),
    maxConcurrency: Type.Integer(),
    mostRecentSuccess: Type.Union([Type.String(), Type.Null()]),
  }),
  content: Type.Object({
    threads: Type.Integer(),
    queued: Type.Integer(),
    inFlight: Type.Integer(),
    stopped: Type.Integer(),
  }),
  browser: Type.Union([
    Type.Object({ active: Type.Integer(), max: Type.Integer(), launches: Type.Integer() }),
    Type.Null(),
  ]),
  /** Distributed mode: `ok` or why Redis does not answer; null in the embedded mode. */
  redis: Type.Union([Type.String(), Type.Null()]),
  /** The configured proxies as this process sees them (each process keeps its own health); empty without any. */
  proxies: Type.Array(
    Type.Object({
      proxy: Type.String({ description: '`host:port` of the proxy; never its credentials.' }),
      tier: Type.Union([Type.Literal('basic'), Type.Literal('stealth')], {
        description: '`basic`: PROXY_URLS and PROXY_SERVER; `stealth`: STEALTH_PROXY_URLS.',
      }),
      healthy: Type.Boolean({ description: 'False while the proxy rests after failing repeatedly.' }),
      restingUntil: Type.Optional(
        Type.String({ description: 'ISO time the resting proxy is tried again from.' }),
      ),
    }),
  ),
});
export type ServiceStatus = Static<typeof ServiceStatus>;
