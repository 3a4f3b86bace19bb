import type { Agents } from '../agent/agents.js';
import type { Config } from '../config/config.js';
import type { Monitors } from '../monitors/monitors.js';
import type { CrawlSettings } from '../jobs/crawl-run.js';
import type { PageStore } from '../jobs/stores/page-store.js';
import type { ScrapeOriginStore } from '../jobs/stores/browser-state/scrape-origin-store.js';
import type { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../operations/services.js';
import type { PageDocument } from '../schemas/page.js';
import type { SessionExecutor } from '../sessions/execute.js';
import type { AskLlm } from '../sessions/prompt-driver.js';
import type { ExtraFields, PageCapabilities, PageExtras } from './page-extras.js';

/**
 * The fields a Firecrawl page asks for beyond the page document: json and summary from the server's LLM,
 * changeTracking against `tenant`'s previous scrape. A field that cannot be written is a `warning`.
 */
export type ExtraFieldsWriter = (
  doc: PageDocument,
  sourceUrl: string,
  extras: PageExtras,
  deadline: Deadline,
  tenant: string,
) => Promise<ExtraFields>;

/** What Firecrawl's surface works with: the operations, and what only its options and documents need. */
export interface FirecrawlDeps {
  services: Services;
  /** Crawl bounds of this server (limit, delay), for Firecrawl's crawl options. */
  settings: CrawlSettings;
  /** What a page can be asked for here (browser engine, the server's LLM). */
  capabilities: PageCapabilities;
  /** The server's own LLM (OPENAI_BASE_URL...), for Firecrawl's extract and llms.txt jobs. */
  serverLlm: Config['llm'];
  /** One prompt to the server's LLM (null without OPENAI_BASE_URL): crawl options from a prompt. */
  askLlm: AskLlm | null;
  /** The last scrape of each page: Firecrawl's `maxAge` cache. */
  pages: PageStore;
  /** SHARE_CACHE_ACROSS_TENANTS: one `maxAge` cache for every tenant, instead of one each. */
  shareCache: boolean;
  extraFields: ExtraFieldsWriter;
  /** Execute in browser sessions: agent-browser commands, or the server's LLM driving them (`prompt`). */
  executor: SessionExecutor;
  /** What reopens a scrape's page for `interact`, by `metadata.scrapeId`. */
  scrapeOrigins: ScrapeOriginStore;
  /** The research agent (`/v2/agent`); null without the server's LLM. */
  agents: Agents | null;
  /** Monitors (`/v2/monitor`): scheduled checks of pages, crawls and searches. */
  monitors: Monitors;
  log: Logger;
}
