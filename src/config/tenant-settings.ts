// Tenants and their default limits: a section of the settings table (settings.ts). A tenant of TENANTS_FILE may
// set its own limits; every other tenant has these.
import { bool, int, keyList, section, text } from './kinds.js';

export const TENANT_SETTINGS = section('Tenants', {
  adminApiKeys: keyList(
    { env: 'ADMIN_API_KEYS', shown: 'none' },
    "Operator keys: they see and act on every tenant's work (jobs, sessions, monitors, profiles, usage) and " +
      'create their own as the tenant `admin`.',
  ),
  tenantsFile: text(
    { env: 'TENANTS_FILE', whenUnset: 'none: tenants come from `API_KEYS`', accepts: 'a file path' },
    'A YAML or JSON file declaring tenants: a name, one or more keys (as `sha256:<hex>` digests, or plain), and ' +
      'limits of their own; read and checked at start (a mistake stops the service, naming its line). See ' +
      'docs/operations.md, "Tenants".',
  ),
  maxScrapesPerTenant: int(
    { env: 'MAX_SCRAPES_PER_TENANT', default: 16, min: 1, max: 10_000 },
    "Pages one tenant has fetched and converted at once (scrapes, a crawl's pages, browser renders), across " +
      'the fleet; more wait their turn, and with other tenants waiting each gets its share.',
  ),
  maxJobsPerTenant: int(
    { env: 'MAX_JOBS_PER_TENANT', default: 20, min: 1, max: 100_000 },
    'Jobs (crawls, batches, extracts, llms.txt, agent runs) one tenant has not seen end; one more is a `429`.',
  ),
  maxSessionsPerTenant: int(
    { env: 'MAX_SESSIONS_PER_TENANT', default: 5, min: 1, max: 256 },
    'Browser sessions one tenant holds at once across the fleet; one more is a `429` naming this setting.',
  ),
  maxMonitorsPerTenant: int(
    { env: 'MAX_MONITORS_PER_TENANT', default: 100, min: 1, max: 100_000 },
    'Monitors one tenant may hold; one more is a `429`.',
  ),
  minMonitorIntervalSeconds: int(
    { env: 'MIN_MONITOR_INTERVAL_SECONDS', default: 300, min: 1, max: 86_400, unit: 's' },
    "Shortest time between two ticks of a monitor's schedule (Firecrawl's minimum); closer ones: `400`.",
  ),
  maxAgentRunsPerTenant: int(
    { env: 'MAX_AGENT_RUNS_PER_TENANT', default: 4, min: 1, max: 1000 },
    'Research agent runs of one tenant not yet ended (queued or running); one more is a `429`.',
  ),
  pagesPerTenantPerDay: int(
    { env: 'PAGES_PER_TENANT_PER_DAY', default: 0, min: 0, max: 1_000_000_000 },
    'Pages one tenant may fetch in a day (UTC), as `GET /api/v1/usage` counts them; `0`: no limit. Past it, ' +
      'new work is a `429` until midnight UTC and a running crawl stops.',
  ),
  llmTokensPerTenantPerDay: int(
    { env: 'LLM_TOKENS_PER_TENANT_PER_DAY', default: 0, min: 0, max: 1_000_000_000_000 },
    "Tokens of the server's LLM one tenant may spend in a day (UTC); `0`: no limit. Past it, LLM work is a " +
      "`429` until midnight UTC (a page's LLM formats: a `warning`).",
  ),
  shareCacheAcrossTenants: bool(
    { env: 'SHARE_CACHE_ACROSS_TENANTS', default: false },
    "Let a tenant's `maxAge` read pages another tenant fetched. Off, each tenant has a cache of its own: a " +
      "page fetched with one tenant's cookies or headers is never served to another.",
  ),
});
