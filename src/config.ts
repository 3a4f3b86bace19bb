import path from 'node:path';
import os from 'node:os';
import { DEFAULT_TREE_LIMITS } from './content/parse/parse.js';

/** Typed service configuration, parsed once from the environment at startup (the only reader of env). */
export interface Config {
  host: string;
  port: number;
  logLevel: string;
  /** Turns the SSRF guard off: loopback/private/link-local targets become reachable. */
  allowPrivateNetworks: boolean;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Largest response body read from a target, in bytes on the wire. */
  maxResponseBytes: number;
  /** Largest response body after gzip/brotli/deflate decoding, in bytes. */
  maxDecompressedBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** Worker threads for parsing and conversion; 0 renders on the main thread. */
  contentWorkers: number;
  /** Heap cap of each content worker, in MiB. */
  contentWorkerHeapMb: number;
  contentTaskGraceMs: number;
  /** Delay between request starts to one host during a crawl when robots.txt sets no Crawl-delay. */
  crawlMinDelayMs: number;
  /** Longest robots.txt Crawl-delay honoured, in ms. */
  crawlMaxDelayMs: number;
  /** Pages fetched at once by a crawl with useParallel. */
  crawlConcurrency: number;
  /** Requests in flight to one host during a crawl. */
  crawlHostConcurrency: number;
  /** Upper bound of a crawl's `limit`. */
  crawlMaxPages: number;
  /**
   * URLs an extract request processes at once (SERVICE_EXTRACT_CONCURRENCY, 1..10, default 5). An invalid
   * value does not stop the service: it is logged at startup and extract requests fail with it.
   */
  extractConcurrency: { value: number } | { error: string };
  /** Characters of page Markdown sent to an LLM at most. */
  llmMaxInputChars: number;
  search: SearchConfig;
  /** Chromium for the browser engine; the engine is off when the file does not exist. */
  chromiumPath: string;
  /** Browser pages (contexts) open at once. */
  browserMaxPages: number;
  /** How long SIGTERM/SIGINT wait for in-flight work before exiting anyway. */
  shutdownTimeoutMs: number;
  /** Requests of one kind (scrape, map, search, extract) running at once. */
  maxConcurrentRequests: number;
  /** Crawls (including crawl streams and llms.txt) running at once. */
  maxConcurrentCrawls: number;
  /** Requests of one kind waiting for a slot before new ones are refused with 503. */
  maxQueuedRequests: number;
  /** Deepest element nesting of a page that is processed. */
  maxHtmlDepth: number;
  /** Most DOM nodes of a page that are processed. */
  maxHtmlNodes: number;
  /** Take scheme and host from X-Forwarded-* (behind a reverse proxy): absolute URLs in answers use them. */
  trustProxy: boolean;
  /**
   * Host names a request's Host header may carry (ALLOWED_HOSTS; null: any). By default, on a loopback-only
   * bind without TRUST_PROXY, only loopback names: a web page a browser on this machine loads cannot reach
   * the service through a rebound DNS name.
   */
  allowedHosts: string[] | null;
  /** Keys accepted in `Authorization: Bearer <key>` or `X-Api-Key`; empty: no authentication. */
  apiKeys: string[];
  /** The distributed job engine (REDIS_URL); null: the embedded SQLite store. */
  redis: {
    url: string;
    /** Job shares this process works at once (WORKERS; 0: API only). */
    workers: number;
    /** A worker process (npm run worker) serves /metrics and /health on this port (METRICS_PORT); null: none. */
    metricsPort: number | null;
    /** Shares a crawl is split into, so that several processes work it (JOB_SHARES). */
    shares: number;
    /** After how long a dead worker's share is taken over (REDIS_STALLED_MS). */
    stalledMs: number;
    /** Lease of a frontier item; a dead worker's pages return to the queue after it (FRONTIER_LEASE_MS). */
    leaseMs: number;
  } | null;
  /** Folder of the embedded job store (SQLite file `pagewright.db`). */
  dataDir: string;
  /** How long a job and its documents are kept after it ends (JOB_TTL_HOURS). */
  jobTtlMs: number;
  /** How long the last scrape of a page is kept for Firecrawl's cache and change tracking (CACHE_TTL_HOURS). */
  cacheTtlMs: number;
  /** Characters of an MCP tool result at most; longer ones are cut with a note (MCP_MAX_CHARS). */
  mcpMaxChars: number;
  /** Pages of a PDF read at most; the rest is named in the document's warning (MAX_DOCUMENT_PAGES). */
  maxDocumentPages: number;
  /**
   * Bytes a document (PDF, Word, Excel, PowerPoint) may unpack to, counted as its zip entries and PDF streams
   * inflate, never as their headers claim (MAX_DOCUMENT_BYTES).
   */
  maxDocumentBytes: number;
  /** How often expired jobs are purged. */
  jobPurgeIntervalMs: number;
  /** Jobs (crawl, batch, extract, llms.txt) running at once; more wait in `scraping`. */
  maxRunningJobs: number;
  /** HMAC-SHA256 key of webhook signatures (X-Firecrawl-Signature); unsigned when unset. */
  webhookSecret: string | null;
  /** The server's own LLM for Firecrawl's extract and llms.txt jobs (self-hosted Firecrawl's variable names). */
  llm: { baseUrl: string; apiKey: string | undefined; model: string } | null;
}

export interface SearchConfig {
  /** searxng | duckduckgo | brave; chosen from the other settings when unset. */
  provider: 'searxng' | 'duckduckgo' | 'brave';
  searxngUrl: string | null;
  duckduckgoUrl: string;
  braveUrl: string;
  braveApiKey: string | null;
}

function searchConfig(env: Env): SearchConfig {
  const searxngUrl = env.SEARXNG_URL || null;
  const braveApiKey = env.BRAVE_API_KEY || null;
  const explicit = env.SEARCH_PROVIDER?.toLowerCase();
  if (explicit && !['searxng', 'duckduckgo', 'brave'].includes(explicit)) {
    throw new ConfigError(
      `SEARCH_PROVIDER must be searxng, duckduckgo or brave, got '${env.SEARCH_PROVIDER}'`,
    );
  }
  const provider = (explicit ??
    (searxngUrl ? 'searxng' : braveApiKey ? 'brave' : 'duckduckgo')) as SearchConfig['provider'];
  if (provider === 'searxng' && !searxngUrl)
    throw new ConfigError('SEARCH_PROVIDER=searxng needs SEARXNG_URL');
  if (provider === 'brave' && !braveApiKey)
    throw new ConfigError('SEARCH_PROVIDER=brave needs BRAVE_API_KEY');
  return {
    provider,
    searxngUrl,
    duckduckgoUrl: env.DUCKDUCKGO_URL || 'https://html.duckduckgo.com/html/',
    braveUrl: env.BRAVE_SEARCH_URL || 'https://api.search.brave.com/res/v1/web/search',
    braveApiKey,
  };
}

export class ConfigError extends Error {}

const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Pagewright/0.1';

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

/** A positive number of hours (fractions allowed, e.g. 0.5), in ms. */
function hours(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback * 3_600_000;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 24 * 365) {
    throw new ConfigError(`${name} must be a number of hours above 0, got '${raw}'`);
  }
  return Math.round(value * 3_600_000);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${raw}'`);
}

function settle(read: () => number): { value: number } | { error: string } {
  try {
    return { value: read() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

const LOOPBACK_BIND = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i;

/** ALLOWED_HOSTS as lower-case names (IPv6 without brackets); `*` allows any. */
function allowedHosts(env: Env): string[] | null {
  const raw = env.ALLOWED_HOSTS?.trim();
  if (raw === '*') return null;
  if (raw) {
    return raw
      .split(',')
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, ''),
      )
      .filter((h) => h !== '');
  }
  const host = env.HOST || '127.0.0.1';
  if (!LOOPBACK_BIND.test(host) || bool(env, 'TRUST_PROXY', false)) return null;
  return [...new Set(['localhost', '127.0.0.1', '::1', host.toLowerCase().replace(/^\[|\]$/g, '')])];
}

export function loadConfig(env: Env = process.env): Config {
  const cores = Math.max(1, Math.min(os.availableParallelism(), 8));
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3002, 0, 65535),
    logLevel: env.LOG_LEVEL || 'info',
    allowPrivateNetworks: bool(env, 'ALLOW_PRIVATE_NETWORKS', false),
    bodyLimitBytes: int(env, 'MAX_REQUEST_BODY_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    maxResponseBytes: int(env, 'MAX_RESPONSE_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxDecompressedBytes: int(env, 'MAX_DECOMPRESSED_BYTES', 30 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxRedirects: int(env, 'MAX_REDIRECTS', 10, 0, 50),
    userAgent: env.USER_AGENT || DEFAULT_USER_AGENT,
    contentWorkers: int(env, 'CONTENT_WORKERS', cores, 0, 64),
    contentWorkerHeapMb: int(env, 'CONTENT_WORKER_HEAP_MB', 512, 64, 16384),
    contentTaskGraceMs: int(env, 'CONTENT_TASK_GRACE_MS', 5000, 0, 600_000),
    crawlMinDelayMs: int(env, 'CRAWL_MIN_DELAY_MS', 250, 0, 60_000),
    crawlMaxDelayMs: int(env, 'CRAWL_MAX_DELAY_MS', 30_000, 0, 600_000),
    crawlConcurrency: int(env, 'CRAWL_CONCURRENCY', 8, 1, 64),
    crawlHostConcurrency: int(env, 'CRAWL_HOST_CONCURRENCY', 4, 1, 64),
    crawlMaxPages: int(env, 'CRAWL_MAX_PAGES', 100_000, 1, 100_000),
    extractConcurrency: settle(() => int(env, 'SERVICE_EXTRACT_CONCURRENCY', 5, 1, 10)),
    llmMaxInputChars: int(env, 'LLM_MAX_INPUT_CHARS', 60_000, 1000, 2_000_000),
    search: searchConfig(env),
    chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
    browserMaxPages: int(env, 'BROWSER_MAX_PAGES', 4, 1, 64),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    maxConcurrentRequests: int(env, 'MAX_CONCURRENT_REQUESTS', 64, 1, 10_000),
    maxConcurrentCrawls: int(env, 'MAX_CONCURRENT_CRAWLS', 4, 1, 1000),
    maxQueuedRequests: int(env, 'MAX_QUEUED_REQUESTS', 256, 0, 100_000),
    maxHtmlDepth: int(env, 'MAX_HTML_DEPTH', DEFAULT_TREE_LIMITS.maxDepth, 10, 100_000),
    maxHtmlNodes: int(env, 'MAX_HTML_NODES', DEFAULT_TREE_LIMITS.maxNodes, 1000, 50_000_000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    allowedHosts: allowedHosts(env),
    apiKeys: (env.API_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    redis: env.REDIS_URL
      ? {
          url: env.REDIS_URL,
          workers: int(env, 'WORKERS', int(env, 'MAX_RUNNING_JOBS', 4, 1, 1000), 0, 1000),
          metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0, 65535) : null,
          shares: int(env, 'JOB_SHARES', 2, 1, 64),
          stalledMs: int(env, 'REDIS_STALLED_MS', 30_000, 500, 600_000),
          leaseMs: int(env, 'FRONTIER_LEASE_MS', 60_000, 500, 3_600_000),
        }
      : null,
    dataDir: env.DATA_DIR || './data',
    jobTtlMs: hours(env, 'JOB_TTL_HOURS', 24),
    cacheTtlMs: hours(env, 'CACHE_TTL_HOURS', 168),
    mcpMaxChars: int(env, 'MCP_MAX_CHARS', 100_000, 1000, 10_000_000),
    maxDocumentPages: int(env, 'MAX_DOCUMENT_PAGES', 500, 1, 100_000),
    maxDocumentBytes: int(env, 'MAX_DOCUMENT_BYTES', 24 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024),
    jobPurgeIntervalMs: int(env, 'JOB_PURGE_INTERVAL_MS', 600_000, 100, 86_400_000),
    maxRunningJobs: int(env, 'MAX_RUNNING_JOBS', 4, 1, 1000),
    webhookSecret: env.WEBHOOK_SECRET || null,
    llm: env.OPENAI_BASE_URL
      ? {
          baseUrl: env.OPENAI_BASE_URL,
          apiKey: env.OPENAI_API_KEY || undefined,
          model: env.MODEL_NAME || 'gpt-4o-mini',
        }
      : null,
  };
}

/**
 * The `pagewright` command's configuration: the service's, with jobs kept under ~/.pagewright unless DATA_DIR
 * says otherwise, and PAGEWRIGHT_API_KEY for `--api` calls to a service behind API_KEYS.
 */
export function loadCliConfig(env: Env = process.env): Config & { apiKey: string | undefined } {
  const config = loadConfig({ DATA_DIR: path.join(os.homedir(), '.pagewright'), ...env });
  return { ...config, apiKey: env.PAGEWRIGHT_API_KEY };
}
