import type { Deadline } from '../lib/deadline.js';

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchQuery {
  q: string;
  limit: number;
}

/** A web search backend. Providers are configured by the operator, so their own URLs are trusted. */
export interface SearchProvider {
  readonly name: string;
  search(query: SearchQuery, deadline: Deadline): Promise<SearchHit[]>;
}
