import { Deadline } from '../lib/deadline.js';
import { operation } from '../operations/services.js';
import type { Operation, Services } from '../operations/services.js';
import { CrawlBody, MapBody } from '../schemas/crawl.js';
import { ExtractBody } from '../schemas/extract.js';
import { ParseBody } from '../schemas/parse.js';
import type { ParseBody as ParseRequest } from '../schemas/parse.js';
import { ScrapeBody } from '../schemas/scrape.js';
import { LlmsTxtBody, SearchBody } from '../schemas/search.js';
import type { CrawlBody as CrawlRequest, MapBody as MapRequest } from '../schemas/crawl.js';
import type { ExtractBody as ExtractRequest } from '../schemas/extract.js';
import type { ScrapeBody as ScrapeRequest } from '../schemas/scrape.js';
import type { LlmsTxtBody as LlmsTxtRequest, SearchBody as SearchRequest } from '../schemas/search.js';

async function withDeadline<T>(
  ms: number,
  signal: AbortSignal,
  work: (d: Deadline) => Promise<T>,
): Promise<T> {
  const deadline = Deadline.after(ms, signal);
  try {
    return await work(deadline);
  } finally {
    deadline.dispose();
  }
}

/**
 * The native operations the CLI and the MCP server expose: each is a route's TypeBox schema (the same
 * validation and messages as HTTP) and a call of the same service. `api` names the HTTP route that does the
 * same, for `pagewright --api`.
 */
export const CORE_OPERATIONS: Operation<Services>[] = [
  operation<Services, ScrapeRequest>({
    name: 'scrape',
    description:
      'Fetch one web page and return it as Markdown (or html, links, images, screenshot). Use for a single known URL; set onlyMainContent to drop navigation and boilerplate.',
    schema: ScrapeBody,
    api: '/api/v1/scrape',
    run: (s, body, signal, caller) =>
      withDeadline(body.timeout ?? 30000, signal, async (d) => ({
        success: true,
        data: await s.scrape(body, d, caller),
      })),
  }),
  operation<Services, MapRequest>({
    name: 'map',
    description:
      "List a site's URLs (sitemaps, then links) without fetching their content. Use first to find which pages of a site to scrape.",
    schema: MapBody,
    api: '/api/v1/map',
    run: (s, body, signal, caller) =>
      withDeadline(body.timeout ?? 30000, signal, async (d) => ({
        success: true,
        links: await s.map(body, d, caller),
      })),
  }),
  operation<Services, SearchRequest>({
    name: 'search',
    description:
      'Search the web; with scrapeResults, also fetch every result as Markdown. Use when you do not know the URL.',
    schema: SearchBody,
    api: '/api/v1/search',
    run: async (s, body, signal, caller) => ({ success: true, data: await s.search(body, signal, caller) }),
  }),
  operation<Services, ExtractRequest>({
    name: 'extract',
    description:
      'Pull structured data (JSON following a schema) out of 1-10 pages, with CSS selectors or an LLM endpoint you give.',
    schema: ExtractBody,
    api: '/api/v1/extract',
    run: (s, body, signal, caller) => s.extract(body, signal, caller),
  }),
  operation<Services, LlmsTxtRequest>({
    name: 'llmstxt',
    description: 'Write an llms.txt for a site: its important pages with one-line descriptions.',
    schema: LlmsTxtBody,
    api: '/api/v1/llmstxt',
    run: async (s, body, signal, caller) => ({ success: true, data: await s.llmstxt(body, signal, caller) }),
  }),
  operation<Services, ParseRequest>({
    name: 'parse',
    description:
      'Convert a file you have (PDF, Word, Excel, PowerPoint, HTML, Markdown, text; base64 in `content`, its name in `filename`) to Markdown, as scrape does for a URL.',
    schema: ParseBody,
    api: null,
    run: (s, { filename, content, ...options }, signal, caller) =>
      withDeadline(30000, signal, async (d) => ({
        success: true,
        data: await s.parse({ filename, bytes: Buffer.from(content, 'base64') }, options, d, caller),
      })),
  }),
];

/** The synchronous crawl of the CLI (pages streamed as they come); the HTTP route is /api/v1/crawl. */
export const CRAWL = { schema: CrawlBody, api: '/api/v1/crawl' } as const;
export type { CrawlRequest };
