import { challengeOf } from '../engines/challenge.js';
import type { Engine, FetchedPage } from '../engines/types.js';
import { BadRequestError } from '../errors.js';
import type { ProxyTier } from '../lib/proxy-pool.js';

/** The `proxy` option of a page (native, and Firecrawl's): which of the server's proxies carry it. */
export type ProxyOption = 'basic' | 'stealth' | 'enhanced' | 'auto';

/** Which tiers of proxies the server has (lib/proxy-route.ts `Proxies`). */
export interface ProxyTiers {
  has(tier: ProxyTier): boolean;
}

/** The tier of a page's fetch, and the tier it is fetched through once more when the target blocks it. */
export interface ProxyPlan {
  tier: ProxyTier;
  onBlock: ProxyTier | null;
}

/**
 * The plan of a page's `proxy` option: `basic` (the default) and `auto` start on PROXY_URLS (directly when
 * none are set), `auto` going on to STEALTH_PROXY_URLS when the target blocks; `stealth` and `enhanced` go
 * through STEALTH_PROXY_URLS, and are a 400 naming it when the server has none (checked before a job starts).
 */
export function proxyPlan(option: ProxyOption | undefined, tiers: ProxyTiers | null | undefined): ProxyPlan {
  const stealth = tiers?.has('stealth') ?? false;
  if (option === 'stealth' || option === 'enhanced') {
    if (!stealth) {
      throw new BadRequestError(
        `proxy: '${option}' needs stealth proxies, and this server sets none (STEALTH_PROXY_URLS)`,
      );
    }
    return { tier: 'stealth', onBlock: null };
  }
  return { tier: 'basic', onBlock: option === 'auto' && stealth ? 'stealth' : null };
}

/** Statuses a site answers a client it refuses with. */
const BLOCK_STATUSES = new Set([401, 403, 429]);

/** The target refused the request: 401, 403 or 429, or an anti-bot challenge page instead of the content. */
export function looksBlocked(page: FetchedPage): boolean {
  return BLOCK_STATUSES.has(page.status) || challengeOf(page) !== null;
}

/**
 * `engine` fetching through the plan's tier and, when that answer looks blocked and the deadline allows,
 * once more through `onBlock` (`proxy: "auto"`), whose answer is the page whatever it is. Without `onBlock`,
 * the engine itself (the request carries the tier).
 */
export function throughProxies(engine: Engine, plan: ProxyPlan): Engine {
  const { tier, onBlock } = plan;
  if (onBlock === null) return engine;
  return {
    name: engine.name,
    async fetchPage(request, deadline) {
      const page = await engine.fetchPage({ ...request, proxy: tier }, deadline);
      if (deadline.expired || !looksBlocked(page)) return page;
      return { ...(await engine.fetchPage({ ...request, proxy: onBlock }, deadline)), proxy: onBlock };
    },
  };
}
