import type { CrawlSpec } from '../jobs/crawl-run.js';
import type { WebhookTarget } from '../jobs/webhooks.js';
import type { ScrapeOptions } from '../schemas/scrape.js';

/**
 * What one target of a monitor fetches at each check: pages through the crawl engine (a list of URLs, as a
 * batch, or a crawl from a URL: retries, throttling and politeness included), or the pages of search results.
 */
export type CheckTarget =
  | { id: string; type: 'pages'; spec: CrawlSpec }
  | {
      id: string;
      type: 'search';
      queries: string[];
      maxResults: number;
      includeDomains: string[];
      excludeDomains: string[];
      page: ScrapeOptions;
    };

/** A monitor's definition as the service runs it (MonitorRecord.config). */
export interface MonitorConfig {
  targets: CheckTarget[];
  /** What a meaningful change is, for the judge; null: no judge. */
  goal: string | null;
  judgeEnabled: boolean;
  /** monitor.page and monitor.check.completed deliveries (events by their short names: page, check.completed). */
  webhook: WebhookTarget | null;
  /** What was asked that this server does not do (email without SMTP...), reported with every check. */
  notes: string[];
  /** The definition as its surface received it, answered back on reads. */
  surface: Record<string, unknown>;
}

/** The key of a page's retained version: its target and URL. */
export const snapshotKey = (targetId: string, url: string): string => `${targetId}|${url}`;
