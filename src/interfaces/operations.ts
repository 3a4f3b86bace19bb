import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { Deadline } from '../lib/deadline.js';
import { CrawlBody, MapBody } from '../schemas/crawl.js';
import { ExtractBody } from '../schemas/extract.js';
import { FcBatchBody, FcCrawlV2Body } from '../schemas/firecrawl.js';
import { ParseBody } from '../schemas/parse.js';
import type { ParseBody as ParseRequest } from '../schemas/parse.js';
import { ScrapeBody } from '../schemas/scrape.js';
import { LlmsTxtBody, SearchBody } from '../schemas/search.js';
import type { CrawlBody as CrawlRequest, MapBody as MapRequest } from '../schemas/crawl.js';
import type { ExtractBody as ExtractRequest } from '../schemas/extract.js';
import type { FcBatchBody as BatchRequest, FcCrawlV2Body as CrawlJobRequest } from '../schemas/firecrawl.js';
import type { ScrapeBody as ScrapeRequest } from '../schemas/scrape.js';
import type { LlmsTxtBody as LlmsTxtRequest, SearchBody as SearchRequest } from '../schemas/search.js';
import { jobStatus, startBatch, startCrawl } from '../services/firecrawl-jobs.js';
import type { Origin } from '../services/firecrawl-jobs.js';
import type { Services } from '../services/index.js';

/**
 * The operations the CLI and the MCP server expose: each is a route's TypeBox schema (the same validation and
 * messages as HTTP) and a call of the same service. `api` names the HTTP route that does the same, for
 * `pagewright --api`.
 */
export interface Operation {
  name: string;
  description: string;
  schema: TSchema;
  /** The HTTP route doing the same (POST with this body), or null when only in-process. */
  api: string | null;
  run(services: Services, input: never, signal: AbortSignal): Promise<unknown>;
}

/** Where job URLs in answers point when there is no HTTP request (a process of its own). */
const LOCAL: Origin = { protocol: 'http', host: 'localhost' };

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

const op = <T>(
  o: Omit<Operation, 'run'> & { run(services: Services, input: T, signal: AbortSignal): Promise<unknown> },
): Operation => o as Operation;

export const StatusInput = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The job id that crawl or batch_scrape answered.',
    }),
    skip: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Documents to skip (the `skip` of the last answer).' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 20, description: 'Documents at most.' }),
    ),
  },
  { additionalProperties: false },
);

export const OPERATIONS: Operation[] = [
  op<ScrapeRequest>({
    name: 'scrape',
    description:
      'Fetch one web page and return it as Markdown (or html, links, images, screenshot). Use for a single known URL; set onlyMainContent to drop navigation and boilerplate.',
    schema: ScrapeBody,
    api: '/api/v1/scrape',
    run: (s, body, signal) =>
      withDeadline(body.timeout ?? 30000, signal, async (d) => ({
        success: true,
        data: await s.scrape(body, d),
      })),
  }),
  op<MapRequest>({
    name: 'map',
    description:
      "List a site's URLs (sitemaps, then links) without fetching their content. Use first to find which pages of a site to scrape.",
    schema: MapBody,
    api: '/api/v1/map',
    run: (s, body, signal) =>
      withDeadline(body.timeout ?? 30000, signal, async (d) => ({
        success: true,
        links: await s.map(body, d),
      })),
  }),
  op<SearchRequest>({
    name: 'search',
    description:
      'Search the web; with scrapeResults, also fetch every result as Markdown. Use when you do not know the URL.',
    schema: SearchBody,
    api: '/api/v1/search',
    run: async (s, body, signal) => ({ success: true, data: await s.search(body, signal) }),
  }),
  op<ExtractRequest>({
    name: 'extract',
    description:
      'Pull structured data (JSON following a schema) out of 1-10 pages, with CSS selectors or an LLM endpoint you give.',
    schema: ExtractBody,
    api: '/api/v1/extract',
    run: (s, body, signal) => s.extract(body, signal),
  }),
  op<LlmsTxtRequest>({
    name: 'llmstxt',
    description: 'Write an llms.txt for a site: its important pages with one-line descriptions.',
    schema: LlmsTxtBody,
    api: '/api/v1/llmstxt',
    run: async (s, body, signal) => ({ success: true, data: await s.llmstxt(body, signal) }),
  }),
  op<ParseRequest>({
    name: 'parse',
    description:
      'Convert a file you have (PDF, Word, Excel, PowerPoint, HTML, Markdown, text; base64 in `content`, its name in `filename`) to Markdown, as scrape does for a URL.',
    schema: ParseBody,
    api: null,
    run: (s, { filename, content, ...options }, signal) =>
      withDeadline(30000, signal, async (d) => ({
        success: true,
        data: await s.parse({ filename, bytes: Buffer.from(content, 'base64') }, options, d),
      })),
  }),
  op<CrawlJobRequest>({
    name: 'crawl',
    description:
      "Start crawling a site in the background (Firecrawl's crawl options); answers a job id at once. Then call check_crawl_status with it to read the pages as they come.",
    schema: FcCrawlV2Body,
    api: '/v2/crawl',
    run: (s, body) => startCrawl(s, body, 'v2', LOCAL),
  }),
  op<BatchRequest>({
    name: 'batch_scrape',
    description:
      'Scrape a list of URLs in the background; answers a job id at once. Then call check_crawl_status with it.',
    schema: FcBatchBody,
    api: '/v2/batch/scrape',
    run: (s, body) => startBatch(s, body, 'v2', LOCAL),
  }),
  op<{ id: string; skip?: number; limit?: number }>({
    name: 'check_crawl_status',
    description:
      'Progress and pages of a crawl or batch_scrape job: status (scraping, completed, failed, cancelled), counts, and `limit` documents from `skip`.',
    schema: StatusInput,
    api: null,
    run: (s, input) =>
      jobStatus(
        s,
        input.id,
        ['crawl', 'batch_scrape'],
        'v2',
        {
          skip: String(input.skip ?? 0),
          limit: String(input.limit ?? 20),
        },
        LOCAL,
      ),
  }),
];

/** The synchronous crawl of the CLI (pages streamed as they come); the HTTP route is /api/v1/crawl. */
export const CRAWL = { schema: CrawlBody, api: '/api/v1/crawl' } as const;
export type { CrawlRequest };
