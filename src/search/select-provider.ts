import type { SearchConfig } from '../config/config.js';
import { BraveProvider } from './providers/brave.js';
import { DuckDuckGoProvider } from './providers/duckduckgo.js';
import type { ParseResultsPage } from './providers/duckduckgo.js';
import { SearxngProvider } from './providers/searxng.js';
import type { SearchProvider } from './types.js';
import type { ProxyRoute } from '../lib/proxy-route.js';

/**
 * The configured provider (SEARCH_PROVIDER, else SearXNG when SEARXNG_URL is set, else Brave with a key, else
 * DuckDuckGo), its requests through `via` (PROXY_ALL) when given.
 */
export function selectProvider(
  config: SearchConfig,
  parseResultsPage: ParseResultsPage,
  via: ProxyRoute | null = null,
): SearchProvider {
  switch (config.provider) {
    case 'searxng':
      return new SearxngProvider(config.searxngUrl!, via);
    case 'brave':
      return new BraveProvider(config.braveUrl, config.braveApiKey!, via);
    default:
      return new DuckDuckGoProvider(config.duckduckgoUrl, parseResultsPage, via);
  }
}
