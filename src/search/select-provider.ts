import type { SearchConfig } from '../config/config.js';
import { BraveProvider } from './providers/brave.js';
import { DuckDuckGoProvider } from './providers/duckduckgo.js';
import type { ParseResultsPage } from './providers/duckduckgo.js';
import { SearxngProvider } from './providers/searxng.js';
import type { SearchProvider } from './types.js';

/** The configured provider (SEARCH_PROVIDER, else SearXNG when SEARXNG_URL is set, else Brave with a key, else DuckDuckGo). */
export function selectProvider(config: SearchConfig, parseResultsPage: ParseResultsPage): SearchProvider {
  switch (config.provider) {
    case 'searxng':
      return new SearxngProvider(config.searxngUrl!);
    case 'brave':
      return new BraveProvider(config.braveUrl, config.braveApiKey!);
    default:
      return new DuckDuckGoProvider(config.duckduckgoUrl, parseResultsPage);
  }
}
