import type { Config } from '../config.js';
import { HttpEngine } from '../engines/http.js';
import type { Deadline } from '../lib/deadline.js';
import type { Resolver } from '../lib/ssrf-guard.js';
import { systemResolver } from '../lib/ssrf-guard.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody } from '../schemas/scrape.js';
import { ContentPool } from './content-pool.js';
import { scrapePage } from './scrape.js';

export interface AppDeps {
  config: Config;
  /** DNS resolution used by the SSRF guard; tests inject one that maps names to loopback. */
  resolver?: Resolver;
  /** Address policy of the SSRF guard (default: isBlockedAddress). */
  isBlockedAddress?: (address: string) => boolean;
  /** Logger options for Fastify (pino); false silences it (tests). */
  logger?: boolean | { level: string };
}

export interface Services {
  scrape(body: ScrapeBody, deadline: Deadline): Promise<PageDocument>;
  close(): Promise<void>;
}

/** Builds the engines once and exposes one orchestrator per operation. */
export function createServices(deps: AppDeps): Services {
  const { config } = deps;
  const http = new HttpEngine({
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolver: deps.resolver ?? systemResolver,
    isBlocked: deps.isBlockedAddress,
    maxResponseBytes: config.maxResponseBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    maxRedirects: config.maxRedirects,
    userAgent: config.userAgent,
  });
  const content = new ContentPool({ threads: config.contentWorkers, maxHeapMb: config.contentWorkerHeapMb });
  return {
    scrape: (body, deadline) => scrapePage(body, deadline, { http, browser: null, content }),
    close: async () => {
      await Promise.all([http.close(), content.close()]);
    },
  };
}
