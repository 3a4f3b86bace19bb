import type { Config } from '../config/config.js';
import type { FetchResource } from '../crawl/fetch-port.js';
import { BrowserEngine } from '../engines/browser.js';
import { ChromiumTls } from '../engines/chromium-tls.js';
import { HttpEngine } from '../engines/http.js';
import { RedisProxyShares } from '../jobs/stores/redis-proxy-share.js';
import type { ProxyTier } from '../lib/proxy-pool.js';
import { Identity } from '../engines/identity.js';
import { Agents } from '../agent/agents.js';
import { withAgentRuns } from '../agent/task.js';
import { LlmClient } from '../extract/llm.js';
import { Deadline } from '../lib/deadline.js';
import { createMonitorScheduler } from '../monitors/create-scheduler.js';
import { Monitors } from '../monitors/monitors.js';
import { withMonitorChecks } from '../monitors/task.js';
import type { FirecrawlDeps } from '../firecrawl/deps.js';
import { extraFieldsWriter } from '../firecrawl/extra-fields.js';
import { SIGNATURE_HEADER, firecrawlJobPorts } from '../firecrawl/job-ports.js';
import { FIRECRAWL_OPERATIONS } from '../firecrawl/operations.js';
import { CORE_OPERATIONS } from '../interfaces/operations.js';
import type { CrawlDeps } from '../jobs/crawl-run.js';
import { createJobManager, openJobStores } from '../jobs/job-engine.js';
import { Gate } from '../lib/gate.js';
import { LocalPageSlots } from '../tenants/page-slots.js';
import { RedisPageSlots } from '../tenants/redis-page-slots.js';
import type { Logger } from '../lib/logger.js';
import { Metrics } from '../lib/metrics.js';
import { meterLlm, meterServices, openUsage } from './metered.js';
import { Proxies } from '../lib/proxy-route.js';
import type { Resolver } from '../lib/ssrf-guard.js';
import { systemResolver } from '../lib/ssrf-guard.js';
import { crawlSite } from '../operations/crawl.js';
import { extractBatch } from '../operations/extract.js';
import { generateLlmsTxt } from '../operations/llmstxt.js';
import { mapSite } from '../operations/map.js';
import { parseFile } from '../operations/parse.js';
import { proxyPlan, throughProxies } from '../pipeline/proxy-choice.js';
import { scrapePage } from '../operations/scrape.js';
import { searchPages, searchWeb } from '../operations/search.js';
import { bindTools } from '../operations/services.js';
import type { Services } from '../operations/services.js';
import { ContentPool } from '../pipeline/content-pool.js';
import { BrowserSessions } from '../sessions/sessions.js';
import { SessionExecutor } from '../sessions/execute.js';
import type { AskLlm } from '../sessions/prompt-driver.js';
import { selectProvider } from '../search/select-provider.js';

export interface AppDeps {
  config: Config;
  /** DNS resolution used by the SSRF guard; tests inject one that maps names to loopback. */
  resolver?: Resolver;
  /** Address policy of the SSRF guard (default: isBlockedAddress). */
  isBlockedAddress?: (address: string) => boolean;
  /** Logger options for Fastify (pino); false silences it (tests). */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
}

/** Everything built once: the operations every surface calls, and what Firecrawl's surface adds to them. */
export interface Composition {
  services: Services;
  firecrawl: FirecrawlDeps;
}

/** A crawl holds its gate slot from its first event until the stream ends. */
async function* gatedStream<T>(
  gate: Gate,
  events: AsyncGenerator<T>,
  signal: AbortSignal,
  tenant: string,
): AsyncGenerator<T> {
  await gate.enter(signal, tenant);
  try {
    yield* events;
  } finally {
    gate.leave();
  }
}

/**
 * Builds the engines, the content pool, the job engine and the operations once, in order: the job stores first
 * (the page store is Firecrawl's cache), then the ports Firecrawl's jobs give the engine, then the manager.
 */
/** Time a monitor page's diff may take in the content workers (the diff itself gives up after 500 ms). */
const DIFF_TASK_MS = 10_000;

export function compose(deps: AppDeps, log: Logger): Composition {
  const { config } = deps;
  const guard = {
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolver: deps.resolver ?? systemResolver,
    isBlocked: deps.isBlockedAddress,
  };
  // One pool per tier for both engines (and PROXY_ALL's calls), so that health and stickiness are one; on a
  // fleet, one for every process (a host keeps its proxy whichever worker fetches it).
  const anyProxy = config.proxies.basic.length + config.proxies.stealth.length > 0;
  const proxyShares = config.redis && anyProxy ? new RedisProxyShares(config.redis.url) : null;
  const proxies = new Proxies(config.proxies, guard, {
    log,
    ...(proxyShares ? { share: (tier: ProxyTier) => proxyShares.tier(tier) } : {}),
  });
  const llm = new LlmClient(guard, proxies.serviceRoute(true));
  const metrics = new Metrics();
  llm.onUsage((purpose, usage) => metrics.llmUsed(purpose, usage));
  // The stores first: each tenant's usage is counted into them from the first page on.
  const stores = openJobStores(config, log);
  const usage = openUsage(config, stores.usageStore, metrics, log);
  meterLlm(llm, usage, config.llm);
  // One identity for every engine and session; its Chromium version is read once, from now on, so that it is
  // ready by the first page.
  const chromium = BrowserEngine.available(config.chromiumPath) ? config.chromiumPath : null;
  const identity = new Identity(config.userAgent, chromium);
  void identity.personas();
  const http = new HttpEngine({
    ...guard,
    maxResponseBytes: config.maxResponseBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    maxRedirects: config.maxRedirects,
    identity,
    proxies,
    webBotAuth: config.webBotAuth,
    chromiumTls: config.httpsClient === 'chromium' ? ChromiumTls.load(guard, log) : null,
  });
  const content = new ContentPool({
    threads: config.contentWorkers,
    maxHeapMb: config.contentWorkerHeapMb,
    graceMs: config.contentTaskGraceMs,
    maxDocumentPages: config.maxDocumentPages,
    maxDocumentBytes: config.maxDocumentBytes,
    log,
    metrics,
    meter: usage,
  });
  const provider = selectProvider(
    config.search,
    (html, base, deadline) => content.searchResults(html, base, deadline),
    proxies.serviceRoute(false),
  );
  // robots.txt and sitemaps as the site's pages are fetched: their TLS setting and their proxies.
  const fetchResource: FetchResource = async (url, deadline, access = {}) => {
    const plan = proxyPlan(access.proxy, proxies);
    const skipTlsVerification = access.skipTlsVerification ?? false;
    const request = { url, headers: {}, skipTlsVerification, proxy: plan.tier, session: access.session };
    const page = await throughProxies(http, plan).fetchPage(request, deadline);
    return { url: page.url, status: page.status, body: page.body, contentType: page.headers['content-type'] };
  };
  const browser = BrowserEngine.available(config.chromiumPath)
    ? new BrowserEngine({
        ...guard,
        executablePath: config.chromiumPath,
        maxPages: config.browserMaxPages,
        identity,
        maxHtmlChars: config.maxResponseBytes,
        log,
        proxies,
        meter: usage,
        webBotAuth: config.webBotAuth,
      })
    : null;
  // Tenants' pages in flight: counted in Redis for the whole fleet, else in this process.
  const limitsOf = (tenant: string) => config.tenants.limits(tenant);
  const pageSlots = config.redis
    ? new RedisPageSlots(config.redis.url, limitsOf, config.redis.leaseMs, log)
    : new LocalPageSlots(limitsOf);
  const crawlDeps: CrawlDeps = {
    http,
    browser,
    content,
    pageSlots,
    usage,
    fetchResource,
    log,
    treeLimits: { maxDepth: config.maxHtmlDepth, maxNodes: config.maxHtmlNodes },
    metrics,
    retries: { maxRetries: config.maxRetries, maxRetryAfterMs: config.maxRetryAfterMs },
    proxies,
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
  const pageLlm = config.llm
    ? {
        llm,
        endpoint: { baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, model: config.llm.model },
        maxInputChars: config.llmMaxInputChars,
        log,
      }
    : null;
  const askLlm: AskLlm | null = pageLlm
    ? (prompt, deadline) => llm.complete(pageLlm.endpoint, prompt, deadline)
    : null;
  const extraFields = extraFieldsWriter({
    pageLlm,
    pages: stores.pages,
    readPageData: (request, deadline) => content.pageData(request, deadline),
    meter: usage,
    log,
  });
  const jobs = createJobManager(config, stores, {
    crawl: crawlDeps,
    guard,
    webhookProxy: proxies.serviceRoute(true),
    log,
    metrics,
    signatureHeader: SIGNATURE_HEADER,
    usage,
    // Jobs are bounded by MAX_RUNNING_JOBS; the request gates' queue limits are for callers awaiting a reply.
    ...withAgentRuns(
      withMonitorChecks(
        firecrawlJobPorts(extraFields, config.llm, {
          extract: (body, signal, caller) => extractBatch(body, signal, extractDeps, caller),
          llmstxt: (body, signal, caller) => generateLlmsTxt(body, signal, { ...crawlDeps, llm }, caller),
        }),
        () => ({
          store: stores.monitors,
          jobs,
          services,
          llm: pageLlm ? { client: llm, endpoint: pageLlm.endpoint } : null,
          webhooks: jobs.webhooks,
          diff: async (previous, current) => {
            const deadline = Deadline.after(DIFF_TASK_MS);
            try {
              return await content.diff(previous, current, deadline);
            } finally {
              deadline.dispose();
            }
          },
          log,
        }),
      ),
      // Read when a run starts, once the services below exist.
      pageLlm && stores.store
        ? () => ({
            services,
            executor: browser ? executor : null,
            llm,
            endpoint: pageLlm.endpoint,
            store: stores.store!,
            maxTokens: config.maxAgentTokens,
            log,
          })
        : null,
    ),
  });
  // Every process fires ticks; the scheduler makes each one fire once across a fleet.
  const monitors = new Monitors({
    store: stores.monitors,
    jobs,
    scheduler: createMonitorScheduler({ redis: config.redis, store: stores.monitors, log }),
    limits: (owner) => config.tenants.limits(owner),
    log,
  });
  monitors.start();
  metrics.watch({
    browser: () => browser?.stats() ?? null,
    content: () => content.stats(),
    queue: () => jobs.queueStatus(),
    jobsRunning: async () => (await jobs.active()).length,
  });
  // Sessions have a Chromium and slots of their own (MAX_BROWSER_SESSIONS), apart from the scrape pool's.
  const sessions = new BrowserSessions({
    store: stores.sessions,
    profiles: stores.profiles,
    guard,
    executablePath: browser ? config.chromiumPath : null,
    limits: {
      maxSessions: config.maxBrowserSessions,
      limitsOf: (owner: string) => config.tenants.limits(owner),
      isolation: config.sessionIsolation,
      memoryBytes: config.sessionMemoryBytes,
      diskBytes: config.sessionDiskBytes,
      maxContexts: config.maxSessionContexts,
      maxPages: config.maxSessionPages,
    },
    identity,
    metrics,
    meter: usage,
    advertiseUrl: config.redis?.fleet?.advertiseUrl ?? null,
    log,
  });
  const executor = new SessionExecutor(sessions, {
    browserExecuteCode: config.browserExecuteCode,
    codeLimits: { memoryBytes: config.browserCodeMemoryBytes, cpuSeconds: config.browserCodeCpuSeconds },
    ask: askLlm,
  });
  const searchDeps = { ...crawlDeps, provider };
  const services: Services = meterServices(usage, {
    metrics,
    jobs,
    tools: [],
    health: stores.health,
    // Each request gate is shared by tenants in turn (their key): one tenant's flood never starves another.
    parse: (file, options, deadline, caller) =>
      gates.scrape.run(
        () => parseFile(file, options, deadline, { content, maxBytes: config.maxResponseBytes }),
        deadline.signal,
        caller.tenant,
      ),
    scrape: (body, deadline, caller) =>
      gates.scrape.run(
        () => scrapePage(body, deadline, { ...crawlDeps, profiles: stores.profiles }, caller),
        deadline.signal,
        caller.tenant,
      ),
    profiles: stores.profiles,
    sessions,
    crawl: (body, signal, caller) => {
      proxyPlan(body.proxy, proxies); // proxy "stealth" without STEALTH_PROXY_URLS: a 400 before the crawl
      return gatedStream(
        gates.crawl,
        crawlSite(body, signal, jobs, crawlDeps.settings, browser !== null, caller),
        signal,
        caller.tenant,
      );
    },
    map: (body, deadline, caller) =>
      gates.map.run(
        async () => (await mapSite(body, deadline, crawlDeps)).map((link) => link.url),
        deadline.signal,
        caller.tenant,
      ),
    mapLinks: (body, deadline, caller) =>
      gates.map.run(() => mapSite(body, deadline, crawlDeps), deadline.signal, caller.tenant),
    extract: (body, signal, caller) =>
      gates.extract.run(() => extractBatch(body, signal, extractDeps, caller), signal, caller.tenant),
    search: (body, signal, caller) =>
      gates.search.run(() => searchWeb(body, signal, searchDeps), signal, caller.tenant),
    searchPages: (query, limit, page, signal, caller) =>
      gates.search.run(() => searchPages(query, limit, page, signal, searchDeps), signal, caller.tenant),
    llmstxt: (body, signal, caller) =>
      gates.crawl.run(
        () => generateLlmsTxt(body, signal, { ...crawlDeps, llm }, caller),
        signal,
        caller.tenant,
      ),
    browserStats: () => browser?.stats() ?? null,
    proxyStatus: () => proxies.status(),
    contentStats: () => content.stats(),
    close: async () => {
      await sessions.close(); // before the store closes: the records say how they ended
      await monitors.close();
      await jobs.close();
      await Promise.all([http.close(), content.close(), llm.close(), browser?.close()]);
      await Promise.all([proxies.close(), pageSlots.close()]);
    },
  });
  const firecrawl: FirecrawlDeps = {
    services,
    settings: crawlDeps.settings,
    capabilities: {
      browser: browser !== null,
      llm: pageLlm !== null,
      stealthProxies: proxies.has('stealth'),
    },
    serverLlm: config.llm,
    askLlm,
    pages: stores.pages,
    shareCache: config.shareCacheAcrossTenants,
    extraFields,
    executor,
    agents: pageLlm ? new Agents(jobs) : null,
    monitors,
    scrapeOrigins: stores.scrapeOrigins,
    log,
  };
  services.tools.push(...bindTools(CORE_OPERATIONS, services), ...bindTools(FIRECRAWL_OPERATIONS, firecrawl));
  return { services, firecrawl };
}
