import type { TSchema } from 'typebox';
import type { JobManager } from '../jobs/job-manager.js';
import type { Profiles } from '../jobs/stores/browser-state/profile-store.js';
import type { Deadline } from '../lib/deadline.js';
import type { ProxyState } from '../lib/proxy-pool.js';
import type { Metrics } from '../lib/metrics.js';
import type { ContentPool } from '../pipeline/content-pool.js';
import type { BrowserSessions } from '../sessions/sessions.js';
import type { CrawlBody, CrawlEvent, MapBody } from '../schemas/crawl.js';
import type { ExtractBody, ExtractReply } from '../schemas/extract.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody, ScrapeOptions } from '../schemas/scrape.js';
import type { LlmsTxtBody, SearchBody, SearchResult } from '../schemas/search.js';
import type { LlmsTxtResult } from './llmstxt.js';
import type { MapLink, MapRequest } from './map.js';
import type { ParseOptions, UploadedFile } from './parse.js';
import type { SearchPage } from './search.js';
import type { Caller } from '../tenants/tenant.js';
import type { Usage } from '../tenants/usage.js';

/**
 * A tool of the CLI and the MCP server: a request schema (the same validation and messages as HTTP), the HTTP
 * route doing the same (POST with this body, for `pagewright --api`; null when only in-process), and a call.
 */
export interface ToolSpec {
  name: string;
  description: string;
  schema: TSchema;
  api: string | null;
}

/** A tool bound to what it runs on. */
export interface Tool extends ToolSpec {
  run(input: never, signal: AbortSignal, caller: Caller): Promise<unknown>;
}

/** A tool not yet bound: `run` takes what it runs on (the services, or a surface's own dependencies). */
export interface Operation<D> extends ToolSpec {
  run(deps: D, input: never, signal: AbortSignal, caller: Caller): Promise<unknown>;
}

/** Declares an operation with its input's type (checked by the schema before `run`). */
export const operation = <D, T>(
  o: ToolSpec & { run(deps: D, input: T, signal: AbortSignal, caller: Caller): Promise<unknown> },
): Operation<D> => o as Operation<D>;

/** Binds operations to what they run on. */
export const bindTools = <D>(operations: Operation<D>[], deps: D): Tool[] =>
  operations.map((o) => ({
    ...o,
    run: (input: never, signal: AbortSignal, caller: Caller) => o.run(deps, input, signal, caller),
  }));

/**
 * What every surface (the native API, Firecrawl's, the CLI, MCP) calls: the operations, built once. Each acts
 * for a `caller` (the request's tenant; a job's or a monitor's owner in a worker): what it fetches is counted
 * to that tenant, within its limits, and the pages and profiles it reads are that tenant's.
 */
export interface Services {
  scrape(body: ScrapeBody, deadline: Deadline, caller: Caller): Promise<PageDocument>;
  /** Crawl events in order; stops when `signal` aborts or the caller stops iterating. */
  crawl(body: CrawlBody, signal: AbortSignal, caller: Caller): AsyncGenerator<CrawlEvent>;
  map(body: MapBody, deadline: Deadline, caller: Caller): Promise<string[]>;
  /** Map with Firecrawl's extra modes, each URL with its page's title and description when known. */
  mapLinks(body: MapRequest, deadline: Deadline, caller: Caller): Promise<MapLink[]>;
  /** A batch of 1-10 URLs; `signal` aborts every URL (client gone). */
  extract(body: ExtractBody, signal: AbortSignal, caller: Caller): Promise<ExtractReply>;
  search(body: SearchBody, signal: AbortSignal, caller: Caller): Promise<SearchResult[]>;
  /** Search hits and, given page options, each hit's page. */
  searchPages(
    query: string,
    limit: number,
    page: ScrapeOptions | null,
    signal: AbortSignal,
    caller: Caller,
  ): Promise<SearchPage[]>;
  /** A file's bytes through the page pipeline (uploads, the CLI's and MCP's parse). */
  parse(file: UploadedFile, options: ParseOptions, deadline: Deadline, caller: Caller): Promise<PageDocument>;
  llmstxt(body: LlmsTxtBody, signal: AbortSignal, caller: Caller): Promise<LlmsTxtResult>;
  /** Asynchronous jobs: start, read, cancel, resume. */
  jobs: JobManager;
  /** Named browser states (`profile`): what the profile routes and the CLI list, show and delete. */
  profiles: Profiles;
  /** Browser sessions an agent drives over CDP or with commands (Firecrawl's `/v2/browser`). */
  sessions: BrowserSessions;
  /** The CLI's and MCP's tools, bound to these services. */
  tools: Tool[];
  /** Null when healthy, else why not (Redis unreachable). */
  health(): Promise<string | null>;
  /** The configured proxies (PROXY_URLS, STEALTH_PROXY_URLS) and their health, by `host:port` only. */
  proxyStatus(): ProxyState[];
  /** Browser pool figures (null when the browser engine is unavailable). */
  browserStats(): { active: number; max: number; launches: number } | null;
  /** Content worker figures: threads, queued and in-flight tasks, tasks stopped for overrunning. */
  contentStats(): ReturnType<ContentPool['stats']>;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: Metrics;
  /** What each tenant used per UTC day, and its daily limits (GET /api/v1/usage, Firecrawl's team usage). */
  usage: Usage;
  close(): Promise<void>;
}
