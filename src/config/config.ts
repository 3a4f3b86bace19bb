import path from 'node:path';
import os from 'node:os';
import { ConfigError, proxyUrl } from './kinds.js';
import { readSettings } from './settings.js';
import { TenantDirectory } from '../tenants/directory.js';
import { AgentError, WebBotAuth } from '../lib/web-bot-auth.js';
import type { Settings } from './settings.js';

export { ConfigError };

type Env = Record<string, string | undefined>;

/** The settings that `Config` holds composed (nested or resolved) rather than as they are. */
const COMPOSED = [
  'allowedHosts',
  'redisUrl',
  'workers',
  'jobShares',
  'metricsPort',
  'redisStalledMs',
  'frontierLeaseMs',
  'advertiseUrl',
  'fleetSecret',
  'openaiBaseUrl',
  'openaiApiKey',
  'modelName',
  'searchProvider',
  'searxngUrl',
  'braveApiKey',
  'braveSearchUrl',
  'duckduckgoUrl',
  'pagewrightApiKey',
  'proxyUrls',
  'proxyServer',
  'proxyUsername',
  'proxyPassword',
  'stealthProxyUrls',
  'proxyAll',
  'apiKeys',
  'adminApiKeys',
  'tenantsFile',
  'maxScrapesPerTenant',
  'maxJobsPerTenant',
  'maxSessionsPerTenant',
  'maxMonitorsPerTenant',
  'minMonitorIntervalSeconds',
  'maxAgentRunsPerTenant',
  'pagesPerTenantPerDay',
  'llmTokensPerTenantPerDay',
  'webBotAuthKey',
  'webBotAuthAgent',
] as const satisfies readonly (keyof Settings)[];
type Composed = (typeof COMPOSED)[number];

/** The search settings (SEARCH_PROVIDER, SEARXNG_URL, DUCKDUCKGO_URL, BRAVE_*), the provider resolved. */
export interface SearchConfig {
  provider: NonNullable<Settings['searchProvider']>;
  searxngUrl: Settings['searxngUrl'];
  duckduckgoUrl: Settings['duckduckgoUrl'];
  braveUrl: Settings['braveSearchUrl'];
  braveApiKey: Settings['braveApiKey'];
}

/**
 * Typed service configuration, parsed once from the environment at startup (the only reader of env). Each
 * value is the setting of src/config/settings.ts with the same name, which says what it is; the settings
 * that belong together are nested here.
 */
export type Config = Omit<Settings, Composed> & {
  /** ALLOWED_HOSTS resolved: the names a Host header may carry; null: any. */
  allowedHosts: string[] | null;
  search: SearchConfig;
  /** The distributed job engine (REDIS_URL and the settings that need it); null: the embedded SQLite store. */
  redis: {
    url: string;
    workers: number;
    metricsPort: Settings['metricsPort'];
    shares: Settings['jobShares'];
    stalledMs: Settings['redisStalledMs'];
    leaseMs: Settings['frontierLeaseMs'];
    /** How the API processes reach each other (ADVERTISE_URL, FLEET_SECRET); null without FLEET_SECRET. */
    fleet: { advertiseUrl: string; secret: string } | null;
  } | null;
  /** The server's own LLM (OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME); null: none. */
  llm: { baseUrl: string; apiKey: string | undefined; model: Settings['modelName'] } | null;
  /**
   * The proxies as URLs with their credentials: `basic` is PROXY_URLS then PROXY_SERVER (with PROXY_USERNAME
   * and PROXY_PASSWORD), `stealth` STEALTH_PROXY_URLS; `all` is PROXY_ALL.
   */
  proxies: { basic: string[]; stealth: string[]; all: boolean };
  /** Tenants and their keys (API_KEYS, ADMIN_API_KEYS, TENANTS_FILE) with the default limits. */
  tenants: TenantDirectory;
  /** The key that signs every request of both engines (WEB_BOT_AUTH_KEY, WEB_BOT_AUTH_AGENT); null: none. */
  webBotAuth: WebBotAuth | null;
};

const LOOPBACK_BIND = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i;

/**
 * ALLOWED_HOSTS, or unset: on a loopback-only bind without TRUST_PROXY only loopback names, so that a web page
 * a browser on this machine loads cannot reach the service through a rebound DNS name; otherwise any.
 */
function hostsOf(s: Settings): string[] | null {
  if (s.allowedHosts === '*') return null;
  if (s.allowedHosts !== null) return s.allowedHosts;
  if (!LOOPBACK_BIND.test(s.host) || s.trustProxy) return null;
  return [...new Set(['localhost', '127.0.0.1', '::1', s.host.toLowerCase().replace(/^\[|\]$/g, '')])];
}

/** ADVERTISE_URL, or this process's own address: its host name when it listens on every interface. */
function advertiseUrlOf(s: Settings): string {
  if (s.advertiseUrl !== null) return s.advertiseUrl.replace(/\/+$/, '');
  const wildcard = s.host === '0.0.0.0' || s.host === '::' || s.host === '[::]';
  const host = wildcard
    ? os.hostname()
    : s.host.includes(':') && !s.host.startsWith('[')
      ? `[${s.host}]`
      : s.host;
  return `http://${host}:${s.port}`;
}

function searchConfig(s: Settings): SearchConfig {
  const provider = s.searchProvider ?? (s.searxngUrl ? 'searxng' : s.braveApiKey ? 'brave' : 'duckduckgo');
  if (provider === 'searxng' && !s.searxngUrl)
    throw new ConfigError('SEARCH_PROVIDER=searxng needs SEARXNG_URL');
  if (provider === 'brave' && !s.braveApiKey)
    throw new ConfigError('SEARCH_PROVIDER=brave needs BRAVE_API_KEY');
  return {
    provider,
    searxngUrl: s.searxngUrl,
    duckduckgoUrl: s.duckduckgoUrl,
    braveUrl: s.braveSearchUrl,
    braveApiKey: s.braveApiKey,
  };
}

/** PROXY_SERVER (a URL, or `host:port` for an http proxy) with PROXY_USERNAME and PROXY_PASSWORD, as one URL. */
function proxyServerOf(s: Settings): string[] {
  if (s.proxyServer === null) return [];
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(s.proxyServer) ? s.proxyServer : `http://${s.proxyServer}`;
  const url = new URL(proxyUrl('PROXY_SERVER', raw));
  if (s.proxyUsername !== null) url.username = encodeURIComponent(s.proxyUsername);
  if (s.proxyPassword !== null) url.password = encodeURIComponent(s.proxyPassword);
  return [url.href];
}

function tenantsOf(s: Settings): TenantDirectory {
  return TenantDirectory.fromSources({
    apiKeys: s.apiKeys,
    adminApiKeys: s.adminApiKeys,
    tenantsFile: s.tenantsFile,
    defaults: {
      scrapes: s.maxScrapesPerTenant,
      jobs: s.maxJobsPerTenant,
      sessions: s.maxSessionsPerTenant,
      monitors: s.maxMonitorsPerTenant,
      minMonitorIntervalSeconds: s.minMonitorIntervalSeconds,
      agentRuns: s.maxAgentRunsPerTenant,
      pagesPerDay: s.pagesPerTenantPerDay,
      llmTokensPerDay: s.llmTokensPerTenantPerDay,
    },
  });
}

/** WEB_BOT_AUTH_KEY read (inline or from its file) for WEB_BOT_AUTH_AGENT; the key is never quoted. */
function webBotAuthOf(s: Settings): WebBotAuth | null {
  if (s.webBotAuthKey === null) return null;
  if (s.webBotAuthAgent === null) {
    throw new ConfigError(
      "WEB_BOT_AUTH_KEY needs WEB_BOT_AUTH_AGENT: the https origin that serves this service's key directory",
    );
  }
  try {
    return WebBotAuth.fromSetting(s.webBotAuthKey, s.webBotAuthAgent);
  } catch (err) {
    if (err instanceof AgentError) throw new ConfigError(err.message);
    throw new ConfigError(`WEB_BOT_AUTH_KEY ${(err as Error).message}`);
  }
}

function configOf(s: Settings): Config {
  const composed: readonly string[] = COMPOSED;
  const flat = Object.fromEntries(Object.entries(s).filter(([key]) => !composed.includes(key)));
  return {
    ...(flat as Omit<Settings, Composed>),
    allowedHosts: hostsOf(s),
    search: searchConfig(s),
    redis:
      s.redisUrl === null
        ? null
        : {
            url: s.redisUrl,
            workers: s.workers ?? s.maxRunningJobs,
            metricsPort: s.metricsPort,
            shares: s.jobShares,
            stalledMs: s.redisStalledMs,
            leaseMs: s.frontierLeaseMs,
            fleet: s.fleetSecret === null ? null : { advertiseUrl: advertiseUrlOf(s), secret: s.fleetSecret },
          },
    llm:
      s.openaiBaseUrl === null
        ? null
        : { baseUrl: s.openaiBaseUrl, apiKey: s.openaiApiKey ?? undefined, model: s.modelName },
    proxies: {
      basic: [...(s.proxyUrls ?? []), ...proxyServerOf(s)],
      stealth: s.stealthProxyUrls ?? [],
      all: s.proxyAll,
    },
    tenants: tenantsOf(s),
    webBotAuth: webBotAuthOf(s),
  };
}

/** The service's configuration from `env`; throws ConfigError naming every invalid setting. */
export function loadConfig(env: Env = process.env): Config {
  return configOf(readSettings(env));
}

/**
 * The `pagewright` command's configuration: the service's, with jobs kept under ~/.pagewright unless DATA_DIR
 * says otherwise, and PAGEWRIGHT_API_KEY for `--api` calls to a service behind API_KEYS.
 */
export function loadCliConfig(env: Env = process.env): Config & { apiKey: string | undefined } {
  const settings = readSettings({ DATA_DIR: path.join(os.homedir(), '.pagewright'), ...env });
  return { ...configOf(settings), apiKey: settings.pagewrightApiKey ?? undefined };
}
