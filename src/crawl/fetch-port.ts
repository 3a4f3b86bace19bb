import type { Deadline } from '../lib/deadline.js';

export interface FetchedResource {
  url: string;
  status: number;
  body: Buffer;
  contentType: string | undefined;
}

/** How crawl modules fetch robots.txt and sitemaps: through the service's guarded http engine. */
export type FetchResource = (url: URL, deadline: Deadline) => Promise<FetchedResource>;
