import type { Deadline } from '../../lib/deadline.js';
import type { ProxyRoute } from '../../lib/proxy-route.js';
import { getFromProvider, parseJson } from '../provider-http.js';
import { SearchProviderError } from '../../errors.js';
import type { SearchHit, SearchProvider, SearchQuery } from '../types.js';

/** Brave Search API (`BRAVE_API_KEY`): web results of one request (at most 20). */
export class BraveProvider implements SearchProvider {
  readonly name = 'brave';

  constructor(
    private readonly endpoint: string,
    private readonly apiKey: string,
    /** PROXY_ALL's route; null: directly. */
    private readonly via: ProxyRoute | null = null,
  ) {}

  async search(query: SearchQuery, deadline: Deadline): Promise<SearchHit[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query.q);
    url.searchParams.set('count', String(Math.min(query.limit, 20)));
    const body = await getFromProvider(
      this.name,
      url,
      { accept: 'application/json', 'x-subscription-token': this.apiKey },
      deadline,
      this.via,
    );
    const json = parseJson(this.name, body) as {
      web?: { results?: { title?: unknown; url?: unknown; description?: unknown }[] };
    };
    if (!json.web || !Array.isArray(json.web.results)) {
      if (json.web === undefined && typeof json === 'object') return [];
      throw new SearchProviderError('Search provider brave answered without web results');
    }
    return json.web.results
      .filter((r) => typeof r.url === 'string')
      .map((r) => ({
        title: String(r.title ?? ''),
        url: String(r.url),
        snippet: String(r.description ?? '').replace(/<\/?strong>/g, ''),
      }))
      .slice(0, query.limit);
  }
}
