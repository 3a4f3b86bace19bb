import type { Deadline } from '../../lib/deadline.js';
import type { ProxyRoute } from '../../lib/proxy-route.js';
import { getFromProvider, parseJson } from '../provider-http.js';
import { SearchProviderError } from '../../errors.js';
import type { SearchHit, SearchProvider, SearchQuery } from '../types.js';

/** SearXNG's JSON API (`/search?format=json`), paging until `limit` results or no more. */
export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng';

  constructor(
    private readonly baseUrl: string,
    /** PROXY_ALL's route; null: directly. */
    private readonly via: ProxyRoute | null = null,
  ) {}

  async search(query: SearchQuery, deadline: Deadline): Promise<SearchHit[]> {
    const hits: SearchHit[] = [];
    for (let page = 1; hits.length < query.limit && page <= 5; page++) {
      const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
      url.searchParams.set('q', query.q);
      url.searchParams.set('format', 'json');
      url.searchParams.set('pageno', String(page));
      const json = parseJson(
        this.name,
        await getFromProvider(this.name, url, { accept: 'application/json' }, deadline, this.via),
      ) as {
        results?: { title?: unknown; url?: unknown; content?: unknown }[];
      };
      if (!Array.isArray(json.results))
        throw new SearchProviderError('Search provider searxng answered without results');
      const fresh = json.results
        .filter((r) => typeof r.url === 'string' && /^https?:\/\//.test(r.url))
        .map((r) => ({ title: String(r.title ?? ''), url: String(r.url), snippet: String(r.content ?? '') }));
      if (fresh.length === 0) break;
      hits.push(...fresh);
    }
    return hits.slice(0, query.limit);
  }
}
