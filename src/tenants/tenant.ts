/** What one tenant may use; 0 for the per-day figures means no limit. */
export interface TenantLimits {
  /** Pages fetched and converted at once (scrapes, a crawl's pages, browser renders). */
  scrapes: number;
  /** Jobs not yet ended (crawls, batches, extracts, llms.txt, agent runs). */
  jobs: number;
  sessions: number;
  monitors: number;
  minMonitorIntervalSeconds: number;
  agentRuns: number;
  pagesPerDay: number;
  llmTokensPerDay: number;
  /** Set when TENANTS_FILE gave the tenant limits of its own (a 429 then names those, not the settings). */
  own?: boolean;
}

export const LIMIT_NAMES = [
  'scrapes',
  'jobs',
  'sessions',
  'monitors',
  'minMonitorIntervalSeconds',
  'agentRuns',
  'pagesPerDay',
  'llmTokensPerDay',
] as const satisfies readonly (keyof TenantLimits)[];

/** The environment variable each limit's default comes from (what a 429 names when the tenant has no own). */
export const LIMIT_SETTINGS: Record<(typeof LIMIT_NAMES)[number], string> = {
  scrapes: 'MAX_SCRAPES_PER_TENANT',
  jobs: 'MAX_JOBS_PER_TENANT',
  sessions: 'MAX_SESSIONS_PER_TENANT',
  monitors: 'MAX_MONITORS_PER_TENANT',
  minMonitorIntervalSeconds: 'MIN_MONITOR_INTERVAL_SECONDS',
  agentRuns: 'MAX_AGENT_RUNS_PER_TENANT',
  pagesPerDay: 'PAGES_PER_TENANT_PER_DAY',
  llmTokensPerDay: 'LLM_TOKENS_PER_TENANT_PER_DAY',
};

/** A tenant as declared: its name, its keys' SHA-256 digests, its limits. */
export interface Tenant {
  name: string;
  keyDigests: Buffer[];
  limits: TenantLimits;
}

/**
 * Who a request (or a job, or a monitor's check) acts for: the tenant that owns what it creates and sees, and
 * whether it is an operator, who sees every tenant's.
 */
export interface Caller {
  tenant: string;
  admin: boolean;
}

/** The tenant of a service without keys, and the owner of records written before tenants were recorded. */
export const DEFAULT_TENANT = 'default';
/** The tenant operators (ADMIN_API_KEYS) create as. */
export const ADMIN_TENANT = 'admin';

/** The caller of a service without keys: the one tenant, which sees all there is. */
export const OPEN_CALLER: Caller = { tenant: DEFAULT_TENANT, admin: true };

/** The owner of a record, for records that predate tenants. */
export const ownerOf = (record: { owner?: string | null }): string => record.owner ?? DEFAULT_TENANT;

/** Whether `caller` may see a record owned by `owner`: its own, or any for an operator. */
export const canSee = (caller: Caller, owner: string | null | undefined): boolean =>
  caller.admin || (owner ?? DEFAULT_TENANT) === caller.tenant;

/** A caller acting for `tenant` (a job's or a monitor's owner, in a worker). */
export const callerFor = (tenant: string): Caller => ({ tenant, admin: false });

/**
 * The owner whose records a caller's list shows: its own tenant's; an operator's, the `tenant` it names
 * (`?tenant=`), or every tenant's (undefined).
 */
export const listedOwner = (caller: Caller, tenant?: string): string | undefined =>
  caller.admin ? tenant || undefined : caller.tenant;

/** A tenant's limits, by name (TenantDirectory.limits). */
export type LimitsOf = (tenant: string) => TenantLimits;

/** How a 429 names a limit: the tenant's own from TENANTS_FILE, or the setting it comes from. */
export const limitText = (name: (typeof LIMIT_NAMES)[number], limits: TenantLimits): string =>
  limits.own ? `limits.${name}=${limits[name]} in TENANTS_FILE` : `${LIMIT_SETTINGS[name]}=${limits[name]}`;
