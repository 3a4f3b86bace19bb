import type { Deadline } from '../lib/deadline.js';

export interface FetchedResource {
  url: string;
  status: number;
  body: Buffer;
  contentType: string | undefined;
}

/**
 * How the site's pages are reached, which its robots.txt and sitemaps are read with too: a robots.txt read
 * another way (TLS verified where the pages skip it, directly where they go through stealth proxies) could
 * fail where the pages would not, and an unreachable robots.txt disallows the whole site (RFC 9309).
 */
export interface ResourceAccess {
  skipTlsVerification?: boolean;
  /** The pages' `proxy` option (pipeline/proxy-choice.ts reads it). */
  proxy?: 'basic' | 'stealth' | 'enhanced' | 'auto';
  /** The sticky key of proxy rotation (the job's id). */
  session?: string;
}

/** How crawl modules fetch robots.txt and sitemaps: through the service's guarded http engine. */
export type FetchResource = (
  url: URL,
  deadline: Deadline,
  access?: ResourceAccess,
) => Promise<FetchedResource>;
