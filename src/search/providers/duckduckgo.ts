import { selectAll, selectOne } from 'css-select';
import type { AnyNode, Element } from '../../content/parse/dom.js';
import { parseHtml } from '../../content/parse/parse.js';
import { textOf } from '../../content/parse/dom.js';
import type { Deadline } from '../../lib/deadline.js';
import type { ProxyRoute } from '../../lib/proxy-route.js';
import { getFromProvider } from '../provider-http.js';
import { SearchProviderError } from '../../errors.js';
import type { SearchHit, SearchProvider, SearchQuery } from '../types.js';

/** DuckDuckGo wraps result links in a redirect (`/l/?uddg=<target>`); this returns the target. */
export function unwrapRedirect(href: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  const target = url.searchParams.get('uddg');
  if (target && /\/l\/?$/.test(url.pathname)) return unwrapRedirect(target, base);
  return /^https?:$/.test(url.protocol) ? url.href : null;
}

export type ParseResultsPage = (html: string, base: string, deadline: Deadline) => Promise<SearchHit[]>;

/** Parses DuckDuckGo's HTML results page: organic results only (ads are left out), links unwrapped. */
export function parseResultsPage(html: string, base: string): SearchHit[] {
  const doc = parseHtml(html);
  const hits: SearchHit[] = [];
  for (const result of selectAll<AnyNode, Element>('.result, .web-result', doc)) {
    const classes = ` ${result.attribs.class ?? ''} `;
    if (/ result--ad | result--ad--small /.test(classes) || result.attribs['data-nrn'] === 'ad') continue;
    const anchor = selectOne<AnyNode, Element>('a.result__a', result);
    if (!anchor) continue;
    const url = unwrapRedirect(anchor.attribs.href ?? '', base);
    if (!url || /duckduckgo\.com\/y\.js/.test(url)) continue;
    const snippet = selectOne<AnyNode, Element>('.result__snippet', result);
    hits.push({ title: textOf(anchor), url, snippet: snippet ? textOf(snippet) : '' });
  }
  return hits;
}

/** The key-less default: DuckDuckGo's HTML endpoint (one page of results, about 25 to 30). */
export class DuckDuckGoProvider implements SearchProvider {
  readonly name = 'duckduckgo';

  constructor(
    private readonly endpoint: string,
    /** Runs parseResultsPage off the event loop (the service's content workers). */
    private readonly parse: ParseResultsPage,
    /** PROXY_ALL's route; null: directly. */
    private readonly via: ProxyRoute | null = null,
  ) {}

  async search(query: SearchQuery, deadline: Deadline): Promise<SearchHit[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query.q);
    const html = await getFromProvider(this.name, url, { accept: 'text/html' }, deadline, this.via);
    if (!/class="[^"]*result/.test(html) && !/No results/i.test(html)) {
      throw new SearchProviderError(
        'Search provider duckduckgo answered a page without results markup (blocked?)',
      );
    }
    return (await this.parse(html, url.href, deadline)).slice(0, query.limit);
  }
}
