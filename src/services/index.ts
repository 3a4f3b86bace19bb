import { Metrics } from '../lib/metrics.js';
import type { Config } from '../config.js';
import { BrowserEngine } from '../engines/browser.js';
import { HttpEngine } from '../engines/http.js';
import { Deadline } from '../lib/deadline.js';
import { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/logger.js';
import type { Resolver } from '../lib/ssrf-guard.js';
import { systemResolver } from '../lib/ssrf-guard.js';
import type { FetchResource } from '../crawl/fetch-port.js';
import type { CrawlBody, CrawlEvent, MapBody } from '../schemas/crawl.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody, ScrapeOptions } from '../schemas/scrape.js';
import { ContentPool } from './content-pool.js';
import { crawlSite } from './crawl.js';
import type { CrawlDeps } from './crawl-run.js';
import { extractBodyOf, llmsTxtBodyOf, llmsTxtResultOf, mergeExtracted } from './firecrawl-tasks.js';
import type { ExtractJobRequest, LlmsTxtJobRequest } from './firecrawl-tasks.js';
import type { JobManager } from './jobs.js';
import { createJobEngine } from './job-engine.js';
import { LlmClient } from '../extract/llm.js';
import type { ExtractBody, ExtractReply } from '../schemas/extract.js';
import { extractBatch } from './extract.js';
import { selectProvider } from '../search/select-provider.js';
import type { LlmsTxtBody, SearchBody, SearchResult } from '../schemas/search.js';
import { generateLlmsTxt } from './llmstxt.js';
import type { LlmsTxtResult } from './llmstxt.js';
import { mapSite } from './map.js';
import type { MapLink, MapRequest } from './map.js';
import { searchPages, searchWeb } from './search.js';
import { parseFile } from './parse.js';
import type { ParseOptions, UploadedFile } from './parse.js';
import { firecrawlDocument } from './firecrawl-options.js';
import type { ExtraFields, PageCapabilities, PageExtras } from './firecrawl-page-options.js';
import { llmFields } from './page-llm.js';
import type { PageLlmDeps } from './page-llm.js';
import { trackChanges } from './change-tracking.js';
import type { PageStore } from '../jobs/page-store.js';
import type { SearchPage } from './search.js';
import { scrapePage } from './scrape.js';

export interface AppDeps {
  config: Config;
  /** DNS resolution used by the SSRF guard; tests inject one that maps names to loopback. */
  resolver?: Resolver;
  /** Address policy of the SSRF guard (default: isBlockedAddress). */
  isBlockedAddress?: (address: string) => boolean;
  /** Logger options for Fastify (pino); false silences it (tests). */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
}

export interface Services {
  scrape(body: ScrapeBody, deadline: Deadline): Promise<PageDocument>;
  /** Crawl events in order; stops when `signal` aborts or the caller stops iterating. */
  crawl(body: CrawlBody, signal: AbortSignal): AsyncGenerator<CrawlEvent>;
  map(body: MapBody, deadline: Deadline): Promise<string[]>;
  /** Map with Firecrawl's extra modes, each URL with its page's title and description when known. */
  mapLinks(body: MapRequest, deadline: Deadline): Promise<MapLink[]>;
  /** A batch of 1-10 URLs; `signal` aborts every URL (client gone). */
  extract(body: ExtractBody, signal: AbortSignal): Promise<ExtractReply>;
  search(body: SearchBody, signal: AbortSignal): Promise<SearchResult[]>;
  /** A file's bytes through the page pipeline (uploads, the CLI's and MCP's parse). */
  parse(file: UploadedFile, options: ParseOptions, deadline: Deadline): Promise<PageDocument>;
  /** Search hits and, given page options, each hit's page (Firecrawl's search). */
  searchPages(
    query: string,
    limit: number,
    page: ScrapeOptions | null,
    signal: AbortSignal,
  ): Promise<SearchPage[]>;
  llmstxt(body: LlmsTxtBody, signal: AbortSignal): Promise<LlmsTxtResult>;
  /** Asynchronous jobs (Firecrawl's crawl, batch scrape, extract, llms.txt). */
  jobs: JobManager;
  /** Null when healthy, else why not (Redis unreachable). */
  health(): Promise<string | null>;
  crawlDeps: CrawlDeps;
  /** The server's own LLM (OPENAI_BASE_URL...), for Firecrawl's extract and llms.txt jobs. */
  serverLlm: Config['llm'];
  /** What a page can be asked for here (browser engine, the server's LLM). */
  pageCapabilities: PageCapabilities;
  /**
   * The fields a Firecrawl page asks for beyond the page document: json and summary from the server's LLM,
   * changeTracking against the previous scrape. A field that cannot be written is a `warning`.
   */
  extraFields(
    doc: PageDocument,
    sourceUrl: string,
    extras: PageExtras,
    deadline: Deadline,
  ): Promise<ExtraFields>;
  /** The last scrape of each page (Firecrawl's cache and change tracking). */
  pages: PageStore;
  /** Browser pool figures (null when the browser engine is unavailable). */
  browserStats(): { active: number; max: number; launches: number } | null;
  /** Content worker figures: threads, queued and in-flight tasks, tasks stopped for overrunning. */
  contentStats(): ReturnType<ContentPool['stats']>;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: Metrics;
  close(): Promise<void>;
}

/** Budget of the LLM formats of one page of a job. */
const LLM_FORMATS_TIMEOUT_MS = 60_000;

/** A crawl holds its gate slot from its first event until the stream ends. */
async function* gatedStream<T>(
  gate: Gate,
  events: AsyncGenerator<T>,
  signal: AbortSignal,
): AsyncGenerator<T> {
  await gate.enter(signal);
  try {
    yield* events;
  } finally {
    gate.leave();
  }
}

/** Builds the engines once and exposes one orchestrator per operation. */
export function createServices(deps: AppDeps, log: Logger): Services {
  const { config } = deps;
  const guard = {
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolver: deps.resolver ?? systemResolver,
    isBlocked: deps.isBlockedAddress,
  };
  const llm = new LlmClient(guard);
  const metrics = new Metrics();
  const http = new HttpEngine({
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolver: deps.resolver ?? systemResolver,
    isBlocked: deps.isBlockedAddress,
    maxResponseBytes: config.maxResponseBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    maxRedirects: config.maxRedirects,
    userAgent: config.userAgent,
  });
  const content = new ContentPool({
    threads: config.contentWorkers,
    maxHeapMb: config.contentWorkerHeapMb,
    graceMs: config.contentTaskGraceMs,
    maxDocumentPages: config.maxDocumentPages,
    maxDocumentBytes: config.maxDocumentBytes,
    log,
    metrics,
  });
  const provider = selectProvider(config.search, (html, base, deadline) =>
    content.searchResults(html, base, deadline),
  );
  const fetchResource: FetchResource = async (url, deadline) => {
    const page = await http.fetchPage({ url, headers: {}, skipTlsVerification: false }, deadline);
    return { url: page.url, status: page.status, body: page.body, contentType: page.headers['content-type'] };
  };
  const browser = BrowserEngine.available(config.chromiumPath)
    ? new BrowserEngine({
        ...guard,
        executablePath: config.chromiumPath,
        maxPages: config.browserMaxPages,
        userAgent: config.userAgent,
        maxHtmlChars: config.maxResponseBytes,
        log,
      })
    : null;
  const crawlDeps: CrawlDeps = {
    http,
    browser,
    content,
    fetchResource,
    log,
    treeLimits: { maxDepth: config.maxHtmlDepth, maxNodes: config.maxHtmlNodes },
    metrics,
    settings: {
      minDelayMs: config.crawlMinDelayMs,
      maxDelayMs: config.crawlMaxDelayMs,
      concurrency: config.crawlConcurrency,
      hostConcurrency: config.crawlHostConcurrency,
      maxPages: config.crawlMaxPages,
      robotsAgent: 'Pagewright',
    },
  };
  const gate = (name: string, max: number): Gate => new Gate(name, max, config.maxQueuedRequests);
  const gates = {
    scrape: gate('scrape', config.maxConcurrentRequests),
    map: gate('map', config.maxConcurrentRequests),
    search: gate('search', config.maxConcurrentRequests),
    extract: gate('extract', config.maxConcurrentRequests),
    crawl: gate('crawl', config.maxConcurrentCrawls),
  };
  const extractDeps = {
    ...crawlDeps,
    llm,
    concurrency: config.extractConcurrency,
    llmMaxInputChars: config.llmMaxInputChars,
  };
  const pageLlm: PageLlmDeps | null = config.llm
    ? {
        llm,
        endpoint: { baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, model: config.llm.model },
        maxInputChars: config.llmMaxInputChars,
        log,
      }
    : null;
  // Set below: the page store comes with the job engine, which needs this function first.
  let pageStore: PageStore | null = null;
  const extraFields = async (
    doc: PageDocument,
    sourceUrl: string,
    extras: PageExtras,
    deadline: Deadline,
  ): Promise<ExtraFields> => {
    let out: ExtraFields = {};
    if (extras.json || extras.summary) {
      out = pageLlm
        ? await llmFields(doc, extras, deadline, pageLlm)
        : { warning: 'the server has no LLM (OPENAI_BASE_URL)' };
    }
    if (extras.changeTracking && pageStore) {
      const tracked = await trackChanges(doc, sourceUrl, extras.changeTracking, pageStore);
      out.changeTracking = tracked.changeTracking;
      if (tracked.warning) out.warning = out.warning ? `${out.warning} ${tracked.warning}` : tracked.warning;
    }
    return out;
  };
  const { jobs, pages, health } = createJobEngine(config, {
    crawl: crawlDeps,
    guard,
    log,
    metrics,
    shapeDocument: async (doc, sourceUrl, request, signal) => {
      if (!request.extras) return firecrawlDocument(doc, sourceUrl);
      const deadline = Deadline.after(LLM_FORMATS_TIMEOUT_MS, signal);
      try {
        const fields = await extraFields(doc, sourceUrl, request.extras, deadline);
        return firecrawlDocument(doc, sourceUrl, { fields, dropMarkdown: request.extras.dropMarkdown });
      } finally {
        deadline.dispose();
      }
    },
    tasks: {
      extract: async (request, signal) => {
        const body = extractBodyOf(request as ExtractJobRequest, config.llm!);
        // Jobs are bounded by MAX_RUNNING_JOBS; the request gate's queue limit is for callers awaiting a reply.
        return mergeExtracted(await extractBatch(body, signal, extractDeps));
      },
      llmstxt: async (request, signal) => {
        const req = request as LlmsTxtJobRequest;
        const body = llmsTxtBodyOf(req, config.llm);
        const result = await generateLlmsTxt(body, signal, { ...crawlDeps, llm });
        return llmsTxtResultOf(result, req.showFullText);
      },
    },
  });
  pageStore = pages;
  metrics.watch({
    browser: () => browser?.stats() ?? null,
    content: () => content.stats(),
    queue: () => jobs.queueStatus(),
    jobsRunning: async () => (await jobs.active()).length,
  });
  return {
    metrics,
    jobs,
    health,
    crawlDeps,
    serverLlm: config.llm,
    pageCapabilities: { browser: browser !== null, llm: pageLlm !== null },
    extraFields,
    pages,
    parse: (file, options, deadline) =>
      gates.scrape.run(
        () => parseFile(file, options, deadline, { content, maxBytes: config.maxResponseBytes }),
        deadline.signal,
      ),
    scrape: (body, deadline) =>
      gates.scrape.run(() => scrapePage(body, deadline, crawlDeps), deadline.signal),
    crawl: (body, signal) =>
      gatedStream(gates.crawl, crawlSite(body, signal, jobs, crawlDeps.settings, browser !== null), signal),
    map: (body, deadline) =>
      gates.map.run(
        async () => (await mapSite(body, deadline, crawlDeps)).map((link) => link.url),
        deadline.signal,
      ),
    mapLinks: (body, deadline) => gates.map.run(() => mapSite(body, deadline, crawlDeps), deadline.signal),
    extract: (body, signal) => gates.extract.run(() => extractBatch(body, signal, extractDeps), signal),
    search: (body, signal) =>
      gates.search.run(() => searchWeb(body, signal, { ...crawlDeps, provider }), signal),
    searchPages: (query, limit, page, signal) =>
      gates.search.run(() => searchPages(query, limit, page, signal, { ...crawlDeps, provider }), signal),
    llmstxt: (body, signal) =>
      gates.crawl.run(() => generateLlmsTxt(body, signal, { ...crawlDeps, llm }), signal),
    browserStats: () => browser?.stats() ?? null,
    contentStats: () => content.stats(),
    close: async () => {
      await jobs.close();
      await Promise.all([http.close(), content.close(), llm.close(), browser?.close()]);
    },
  };
}
