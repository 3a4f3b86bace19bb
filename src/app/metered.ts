import type { Config } from '../config/config.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import type { UsageStore } from '../jobs/stores/usage-state/usage-store.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Services } from '../operations/services.js';
import { creditsOf } from '../tenants/credits.js';
import { meteredAs, meteredSteps, meteredTenant } from '../tenants/metering.js';
import { DEFAULT_TENANT } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import { Usage } from '../tenants/usage.js';

/** The usage service over the job engine's usage store, counted in this process's metrics as it goes. */
export function openUsage(config: Config, store: UsageStore, metrics: Metrics, log: Logger): Usage {
  metrics.labelTenants(config.tenants.names());
  return new Usage({
    store,
    limits: (tenant) => config.tenants.limits(tenant),
    log,
    onAdd: (tenant, counts) => metrics.tenantUsed(tenant, counts),
  });
}

/**
 * The server LLM's tokens count to the tenant of the work running (metering.ts), and a call for a tenant past
 * its tokens of the day is refused before it is sent. A request's own `llmBaseUrl` is the caller's to pay for:
 * neither counted nor limited.
 */
export function meterLlm(llm: LlmClient, usage: Usage, server: { baseUrl: string } | null): void {
  const isServer = (endpoint: LlmEndpoint): boolean => server !== null && endpoint.baseUrl === server.baseUrl;
  const tenant = (): string => meteredTenant() ?? DEFAULT_TENANT;
  llm.onUsage((_purpose, used, endpoint) => {
    if (isServer(endpoint)) usage.add(tenant(), { llmTokens: used.prompt + used.completion });
  });
  llm.admitWith(async (endpoint) => {
    if (isServer(endpoint)) await usage.checkTokens(tenant());
  });
}

/** Runs the first step of `steps` only once `check` passed (a crawl past the day's pages never starts). */
async function* checkedFirst<T>(check: () => Promise<void>, steps: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    await check();
  } catch (err) {
    await steps.return(undefined);
    throw err;
  }
  yield* steps;
}

/**
 * The services as every surface calls them: each call runs metered to its caller's tenant (what the LLM client
 * and the browser count deep inside is that tenant's), and work that fetches pages is refused with a 429 once
 * the tenant fetched its pages of the day. An upload parsed is one credit (a fetched page's is counted where it
 * is fetched, src/pipeline/fetch-page.ts).
 */
export function meterServices(usage: Usage, s: Omit<Services, 'usage'>): Services {
  const fetching = <T>(caller: Caller, work: () => Promise<T>): Promise<T> =>
    meteredAs(caller.tenant, async () => {
      await usage.checkPages(caller.tenant);
      return work();
    });
  return {
    ...s,
    usage,
    scrape: (body, deadline, caller) => fetching(caller, () => s.scrape(body, deadline, caller)),
    crawl: (body, signal, caller) =>
      meteredSteps(
        caller.tenant,
        checkedFirst(() => usage.checkPages(caller.tenant), s.crawl(body, signal, caller)),
      ),
    map: (body, deadline, caller) => fetching(caller, () => s.map(body, deadline, caller)),
    mapLinks: (body, deadline, caller) => fetching(caller, () => s.mapLinks(body, deadline, caller)),
    extract: (body, signal, caller) => fetching(caller, () => s.extract(body, signal, caller)),
    search: (body, signal, caller) => fetching(caller, () => s.search(body, signal, caller)),
    searchPages: (query, limit, page, signal, caller) =>
      fetching(caller, () => s.searchPages(query, limit, page, signal, caller)),
    llmstxt: (body, signal, caller) => fetching(caller, () => s.llmstxt(body, signal, caller)),
    parse: (file, options, deadline, caller) =>
      meteredAs(caller.tenant, async () => {
        const document = await s.parse(file, options, deadline, caller);
        usage.add(caller.tenant, { credits: creditsOf(document.metadata) });
        return document;
      }),
  };
}
