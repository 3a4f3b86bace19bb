// The settings table: every environment variable the service reads, declared once. loadConfig (config.ts)
// parses the environment with it, `Config` takes its types from it, and `npm run docs` renders it as
// docs/reference/configuration.md (scripts/reference/configuration.ts); test/docs-drift.test.ts fails when the
// committed page differs.
import os from 'node:os';
import { DEFAULT_TREE_LIMITS } from '../content/parse/tree-limits.js';
import {
  ConfigError,
  atRequest,
  bool,
  bytes,
  hostList,
  hours,
  int,
  keyList,
  oneOf,
  proxyList,
  secret,
} from './kinds.js';
import { section, text, url } from './kinds.js';
import { BROWSER_SETTINGS } from './browser-settings.js';
import { TENANT_SETTINGS } from './tenant-settings.js';
import { WEB_BOT_AUTH_SETTINGS } from './web-bot-auth-settings.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** pino's levels. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Keyed by the name the value has in `Settings` (and in `Config`, for the settings it holds as they are). */
export const SETTINGS = {
  ...section('Service', {
    host: text(
      { env: 'HOST', default: '127.0.0.1', accepts: 'an IP address or host name' },
      'Address the API listens on; the loopback default keeps it off the network.',
    ),
    port: int({ env: 'PORT', default: 3002, min: 0, max: 65535 }, 'Port the API listens on.'),
    logLevel: oneOf(
      LOG_LEVELS,
      { env: 'LOG_LEVEL', default: 'info' },
      "Log level (pino's); `silent` turns logging off.",
    ),
    shutdownTimeoutMs: int(
      { env: 'SHUTDOWN_TIMEOUT_MS', default: 10_000, min: 0, max: 600_000, unit: 'ms' },
      'How long SIGTERM/SIGINT wait for in-flight work before the process exits anyway.',
    ),
  }),
  ...section('Access', {
    apiKeys: keyList(
      { env: 'API_KEYS', shown: 'none: no key needed' },
      'Keys accepted in `Authorization: Bearer <key>` or `X-Api-Key`, each `name:key` (a tenant with that name; ' +
        'two keys with one name are one tenant, for rotation) or a bare key (a tenant of its own). When set, every ' +
        "route but `/health` and the web app's files needs one (`401`); without it the service is open to one " +
        'tenant, `default`, so keep it on loopback.',
    ),
    allowedHosts: hostList(
      {
        env: 'ALLOWED_HOSTS',
        whenUnset: '`localhost`, `127.0.0.1`, `::1` on a loopback `HOST` without `TRUST_PROXY`; else any',
      },
      "Host names a request's `Host` header may carry: a web page that rebinds its DNS name to this machine " +
        'sends its own name, and is refused (`403`).',
    ),
    trustProxy: bool(
      { env: 'TRUST_PROXY', default: false },
      'Behind a reverse proxy: scheme and host come from `X-Forwarded-*`, so the absolute URLs in answers ' +
        'use the public name.',
    ),
    allowPrivateNetworks: bool(
      { env: 'ALLOW_PRIVATE_NETWORKS', default: false },
      '`true` turns the SSRF guard off: loopback, private and link-local targets become reachable (tests and ' +
        'trusted networks only).',
    ),
  }),
  ...TENANT_SETTINGS,
  ...section('Limits', {
    bodyLimitBytes: bytes(
      { env: 'MAX_REQUEST_BODY_BYTES', default: MIB, min: KIB, max: 100 * MIB },
      'Largest accepted request body.',
    ),
    maxConcurrentRequests: int(
      { env: 'MAX_CONCURRENT_REQUESTS', default: 64, min: 1, max: 10_000 },
      'Scrape, map, search and extract requests running at once, each kind on its own.',
    ),
    maxConcurrentCrawls: int(
      { env: 'MAX_CONCURRENT_CRAWLS', default: 4, min: 1, max: 1000 },
      'Crawls, crawl streams and llms.txt generations running at once.',
    ),
    maxQueuedRequests: int(
      { env: 'MAX_QUEUED_REQUESTS', default: 256, min: 0, max: 100_000 },
      'Requests of one kind waiting for a slot; beyond it, `503` with `Retry-After`.',
    ),
    maxHtmlDepth: int(
      { env: 'MAX_HTML_DEPTH', default: DEFAULT_TREE_LIMITS.maxDepth, min: 10, max: 100_000 },
      "Pages nesting deeper are refused (`422`); 512 is Chromium's own parser limit, so pages browsers render " +
        'faithfully stay under it.',
    ),
    maxHtmlNodes: int(
      { env: 'MAX_HTML_NODES', default: DEFAULT_TREE_LIMITS.maxNodes, min: 1000, max: 50_000_000 },
      'Pages holding more elements and text nodes are refused (`422`), before the rest is parsed.',
    ),
    maxDocumentPages: int(
      { env: 'MAX_DOCUMENT_PAGES', default: 500, min: 1, max: 100_000 },
      "Pages of a PDF read at most; the rest is named in the document's `metadata.warning`.",
    ),
    maxDocumentBytes: bytes(
      { env: 'MAX_DOCUMENT_BYTES', default: 24 * MIB, min: MIB, max: 4 * GIB },
      'Bytes a document (PDF, Word, Excel, PowerPoint) may unpack to, counted as its zip entries and PDF ' +
        'streams inflate, never as their headers claim; past it `422`.',
    ),
    mcpMaxChars: int(
      { env: 'MCP_MAX_CHARS', default: 100_000, min: 1000, max: 10_000_000 },
      'Characters of an MCP tool result at most; longer ones are cut with a note.',
    ),
  }),
  ...section('Fetching and content', {
    userAgent: text(
      {
        env: 'USER_AGENT',
        default: 'chromium',
        accepts: '`chromium`, `honest` or a header value',
      },
      'Who requests to targets say they are, on both engines. `chromium`: the shipped Chromium (its version, ' +
        'read at start), with its `sec-ch-ua` client hints; `honest`: the same, its User-Agent ending in ' +
        "`Pagewright/0.1`; any other value is sent as the `User-Agent`, with no client hints. A request's own " +
        '`User-Agent` header wins (docs/guide.md, "Headers sent to the target").',
    ),
    httpsClient: oneOf(
      ['chromium', 'node'],
      { env: 'HTTPS_CLIENT', default: 'chromium' },
      'How the http engine opens https connections. `chromium`: as the shipped Chromium does at TLS and HTTP/2 ' +
        '(BoringSSL through wreq-js: its cipher suites, extensions, ALPN h2, SETTINGS and header order; ' +
        "docs/architecture.md says what still differs); `node`: with Node's TLS over HTTP/1.1. Plain http and " +
        "requests through proxies use Node's client either way. `chromium` trusts the system's roots (and " +
        "`SSL_CERT_FILE`) with Mozilla's; `NODE_EXTRA_CA_CERTS` applies to `node` only.",
    ),
    maxResponseBytes: bytes(
      { env: 'MAX_RESPONSE_BYTES', default: 10 * MIB, min: KIB, max: GIB },
      'Largest target body read, in bytes on the wire; also the largest file uploaded to parse.',
    ),
    maxDecompressedBytes: bytes(
      { env: 'MAX_DECOMPRESSED_BYTES', default: 30 * MIB, min: KIB, max: GIB },
      'Largest target body after gzip, brotli, zstd or deflate decoding (a zip-bomb cap).',
    ),
    maxRedirects: int(
      { env: 'MAX_REDIRECTS', default: 10, min: 0, max: 50 },
      'Redirects followed per fetch; each hop is checked by the SSRF guard.',
    ),
    maxRetries: int(
      { env: 'MAX_RETRIES', default: 2, min: 0, max: 10 },
      'Retries of a page after a transient failure (a reset or refused connection, an attempt timing out, a ' +
        'TLS handshake error, HTTP `408`, `429`, `502`, `503`, `504`), after an exponential backoff with ' +
        'jitter: a scrape retries within its `timeout`, a crawl or batch puts the page back in its queue. The ' +
        "native API's `maxRetries` sets it per request; Firecrawl's routes use this value.",
    ),
    maxRetryAfterMs: int(
      { env: 'MAX_RETRY_AFTER_MS', default: 60_000, min: 0, max: 3_600_000, unit: 'ms' },
      'Longest `Retry-After` honoured (on `429` and `503`, seconds or a date): a crawl holds every request ' +
        'to that host until then, and the page waits at least that long before its retry.',
    ),
    contentWorkers: int(
      {
        env: 'CONTENT_WORKERS',
        default: Math.max(1, Math.min(os.availableParallelism(), 8)),
        shown: 'the cores, at most 8',
        min: 0,
        max: 64,
      },
      'Worker threads for parsing and conversion, so a heavy page never stalls other requests; `0` runs ' +
        'them on the main thread.',
    ),
    contentWorkerHeapMb: int(
      { env: 'CONTENT_WORKER_HEAP_MB', default: 512, min: 64, max: 16384, unit: 'MiB' },
      'Heap cap of each content worker; a page that needs more fails alone.',
    ),
    contentTaskGraceMs: int(
      { env: 'CONTENT_TASK_GRACE_MS', default: 5000, min: 0, max: 600_000, unit: 'ms' },
      "A parse still running this long after its request's deadline loses its worker.",
    ),
  }),
  ...WEB_BOT_AUTH_SETTINGS,
  ...section('Crawl', {
    crawlMinDelayMs: int(
      { env: 'CRAWL_MIN_DELAY_MS', default: 250, min: 0, max: 60_000, unit: 'ms' },
      'Spacing of request starts to one host when robots.txt sets no `Crawl-delay`.',
    ),
    crawlMaxDelayMs: int(
      { env: 'CRAWL_MAX_DELAY_MS', default: 30_000, min: 0, max: 600_000, unit: 'ms' },
      'Longest robots.txt `Crawl-delay` honoured.',
    ),
    crawlConcurrency: int(
      { env: 'CRAWL_CONCURRENCY', default: 8, min: 1, max: 64 },
      'Pages fetched at once by a crawl with `useParallel`.',
    ),
    crawlHostConcurrency: int(
      { env: 'CRAWL_HOST_CONCURRENCY', default: 4, min: 1, max: 64 },
      'Requests in flight to one host during a crawl (across all workers with `REDIS_URL`).',
    ),
    crawlMaxPages: int(
      { env: 'CRAWL_MAX_PAGES', default: 100_000, min: 1, max: 100_000 },
      "Upper bound of a crawl's `limit` (the native `/api/v1/crawl` stops at 10000).",
    ),
  }),
  ...BROWSER_SETTINGS,
  ...section('Proxies', {
    proxyUrls: proxyList(
      { env: 'PROXY_URLS', whenUnset: 'none: targets are fetched directly' },
      'Proxies for every request to a target, of both engines (pages, redirects, robots.txt, sitemaps, the ' +
        "browser's subresources), credentials in the URL (`http://user:pass@host:port`). Rotated per host, " +
        'the same one kept per job and host; a failing proxy rests. See docs/operations.md, "Proxies".',
    ),
    proxyServer: text(
      {
        env: 'PROXY_SERVER',
        whenUnset: 'none',
        accepts: 'a proxy URL, or `host:port` (http)',
      },
      "Self-hosted Firecrawl's proxy variable: one more proxy after those of `PROXY_URLS`.",
    ),
    proxyUsername: secret(
      { env: 'PROXY_USERNAME', requires: 'PROXY_SERVER' },
      "User name for `PROXY_SERVER` (Firecrawl's variable).",
    ),
    proxyPassword: secret(
      { env: 'PROXY_PASSWORD', requires: 'PROXY_SERVER' },
      "Password for `PROXY_SERVER` (Firecrawl's variable).",
    ),
    stealthProxyUrls: proxyList(
      { env: 'STEALTH_PROXY_URLS', whenUnset: 'none: `proxy: "stealth"` is refused (`400`)' },
      'Proxies for requests with `proxy: "stealth"` (Firecrawl\'s `stealth` and `enhanced`), and for the ' +
        'second try of `proxy: "auto"` when a target blocks the first; same form and rotation as `PROXY_URLS`.',
    ),
    proxyAll: bool(
      { env: 'PROXY_ALL', default: false },
      "`true` sends the service's own calls (webhooks, LLM, search providers) through `PROXY_URLS` too; " +
        'by default only requests to targets use proxies.',
    ),
  }),
  ...section('Jobs and storage', {
    dataDir: text(
      {
        env: 'DATA_DIR',
        default: './data',
        shown: '`./data` (the `pagewright` command: `~/.pagewright`)',
        accepts: 'a folder path',
      },
      'Folder of the embedded job store (`pagewright.db`, SQLite).',
    ),
    jobTtlMs: hours(
      { env: 'JOB_TTL_HOURS', default: 24 },
      'How long a job and its documents are kept after it ends.',
    ),
    cacheTtlMs: hours(
      { env: 'CACHE_TTL_HOURS', default: 168 },
      "How long the last scrape of a page is kept, for Firecrawl's `maxAge` cache and `changeTracking`.",
    ),
    jobPurgeIntervalMs: int(
      { env: 'JOB_PURGE_INTERVAL_MS', default: 600_000, min: 100, max: 86_400_000, unit: 'ms' },
      'How often expired jobs are purged.',
    ),
    maxRunningJobs: int(
      { env: 'MAX_RUNNING_JOBS', default: 4, min: 1, max: 1000 },
      'Jobs (crawl, batch, extract, llms.txt) running at once; more wait in `scraping`.',
    ),
    webhookSecret: secret(
      { env: 'WEBHOOK_SECRET' },
      'Signs webhook bodies (`X-Firecrawl-Signature: sha256=<HMAC-SHA256>`); unset, they are unsigned.',
    ),
    profileTtlDays: int(
      { env: 'PROFILE_TTL_DAYS', default: 30, min: 1, max: 3650, unit: 'days' },
      'How long a profile (a stored browser state: cookies and local storage, `profile: {name}`) is kept ' +
        'after it was last saved.',
    ),
    profileSecret: secret(
      { env: 'PROFILE_SECRET' },
      'Encrypts profiles at rest (AES-256-GCM, the key derived from it with HKDF-SHA256), in the SQLite file ' +
        'or in Redis; unset, they are stored as plain JSON. A profile saved with it does not open without it.',
    ),
  }),
  ...section('Several processes (Redis)', {
    redisUrl: url(
      { env: 'REDIS_URL', whenUnset: 'none: the embedded SQLite store', schemes: ['redis', 'rediss'] },
      'Jobs on Redis and BullMQ, so that several processes share them; the service does not start when ' +
        'Redis does not answer.',
    ),
    workers: int(
      { env: 'WORKERS', requires: 'REDIS_URL', whenUnset: '`MAX_RUNNING_JOBS`', min: 0, max: 1000 },
      'Job shares this process works at once; `0` for a process that only serves the API.',
    ),
    jobShares: int(
      { env: 'JOB_SHARES', requires: 'REDIS_URL', default: 2, min: 1, max: 64 },
      'Shares a crawl is split into: how many processes can work it at once.',
    ),
    metricsPort: int(
      { env: 'METRICS_PORT', requires: 'REDIS_URL', whenUnset: 'none', min: 0, max: 65535 },
      'A worker process (`npm run worker`) serves its `/metrics` and `/health` on this port.',
    ),
    redisStalledMs: int(
      { env: 'REDIS_STALLED_MS', requires: 'REDIS_URL', default: 30_000, min: 500, max: 600_000, unit: 'ms' },
      "After how long a dead worker's share of a job is taken over by another.",
    ),
    advertiseUrl: url(
      {
        env: 'ADVERTISE_URL',
        requires: 'REDIS_URL',
        whenUnset: "`http://HOST:PORT`, the machine's host name for a wildcard `HOST`",
        schemes: ['http', 'https'],
      },
      'Where the other API processes of the fleet reach this one: a browser session is held by one process, and ' +
        'the others forward its calls and sockets (CDP, live view) there. Needs `FLEET_SECRET`.',
    ),
    fleetSecret: secret(
      { env: 'FLEET_SECRET', requires: 'REDIS_URL' },
      "Shared by the fleet's processes: signs the calls one forwards to another (a browser session's). Unset, " +
        'a call for a session another process holds is answered `409 SESSION_HELD_ELSEWHERE`.',
    ),
    frontierLeaseMs: int(
      {
        env: 'FRONTIER_LEASE_MS',
        requires: 'REDIS_URL',
        default: 60_000,
        min: 500,
        max: 3_600_000,
        unit: 'ms',
      },
      "Lease of a page being fetched; a dead worker's pages return to the queue after it.",
    ),
  }),
  ...section('LLM and search', {
    extractConcurrency: atRequest(
      int(
        { env: 'SERVICE_EXTRACT_CONCURRENCY', default: 5, min: 1, max: 10 },
        'URLs an extract request processes at once. The product specification makes an invalid value an ' +
          'error of extract requests, not of the service: it is logged at startup, and extract requests ' +
          'answer `500 CONFIGURATION_ERROR` until it is fixed.',
      ),
    ),
    llmMaxInputChars: int(
      { env: 'LLM_MAX_INPUT_CHARS', default: 60_000, min: 1000, max: 2_000_000 },
      'Characters of page Markdown sent to an LLM at most.',
    ),
    maxAgentTokens: int(
      { env: 'MAX_AGENT_TOKENS', default: 200_000, min: 1000, max: 100_000_000 },
      "Tokens (prompt and completion, its tools' LLM calls included) one research agent run may spend; past 80 % it is only offered the final answer, at 100 % it fails.",
    ),
    openaiBaseUrl: url(
      { env: 'OPENAI_BASE_URL', whenUnset: 'none', schemes: ['http', 'https'] },
      "The server's own LLM (OpenAI-compatible), for Firecrawl's `json` and `summary` formats and its " +
        "extract and llms.txt jobs; self-hosted Firecrawl's variable names.",
    ),
    openaiApiKey: secret({ env: 'OPENAI_API_KEY', requires: 'OPENAI_BASE_URL' }, "Key for the server's LLM."),
    modelName: text(
      { env: 'MODEL_NAME', requires: 'OPENAI_BASE_URL', default: 'gpt-4o-mini', accepts: 'a model name' },
      "Model of the server's LLM.",
    ),
    searchProvider: oneOf(
      ['searxng', 'duckduckgo', 'brave'],
      {
        env: 'SEARCH_PROVIDER',
        whenUnset: '`searxng` with `SEARXNG_URL`, else `brave` with `BRAVE_API_KEY`, else `duckduckgo`',
      },
      'Search provider; `searxng` needs `SEARXNG_URL` and `brave` needs `BRAVE_API_KEY`.',
    ),
    searxngUrl: url(
      { env: 'SEARXNG_URL', whenUnset: 'none', schemes: ['http', 'https'] },
      'A SearXNG instance (with `json` among its `search.formats`). Operator configuration: the SSRF guard ' +
        'does not apply.',
    ),
    braveApiKey: secret({ env: 'BRAVE_API_KEY' }, 'Brave Search API key.'),
    braveSearchUrl: url(
      {
        env: 'BRAVE_SEARCH_URL',
        default: 'https://api.search.brave.com/res/v1/web/search',
        schemes: ['http', 'https'],
      },
      'Endpoint of the Brave Search API.',
    ),
    duckduckgoUrl: url(
      { env: 'DUCKDUCKGO_URL', default: 'https://html.duckduckgo.com/html/', schemes: ['http', 'https'] },
      "Endpoint of DuckDuckGo's HTML results, the key-less default provider.",
    ),
  }),
  ...section('Command line', {
    pagewrightApiKey: secret(
      { env: 'PAGEWRIGHT_API_KEY' },
      'Read by the `pagewright` command only: the key its `--api` calls send to a service behind `API_KEYS`.',
    ),
  }),
};

/** The settings' values as the environment gives them, each typed by its declaration. */
export type Settings = { [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K]['read']> };

/**
 * Reads every setting of the table from `env`; throws one ConfigError naming every invalid variable (a
 * setting checked at request time holds its error instead).
 */
export function readSettings(env: Record<string, string | undefined>): Settings {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS)) {
    try {
      values[key] = setting.read(env[setting.env]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return values as Settings;
}
