import { Type } from 'typebox';
import { operation } from '../operations/services.js';
import type { Operation } from '../operations/services.js';
import type { FirecrawlDeps } from './deps.js';
import { jobStatus, startBatch, startCrawl } from './jobs.js';
import type { Origin } from './jobs.js';
import { FcBatchBody, FcCrawlV2Body } from './schemas/jobs.js';
import type { FcBatchBody as BatchRequest, FcCrawlV2Body as CrawlJobRequest } from './schemas/jobs.js';

/** Where job URLs in answers point when there is no HTTP request (a process of its own). */
const LOCAL: Origin = { protocol: 'http', host: 'localhost' };

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

/** Firecrawl's jobs as tools of the CLI and the MCP server (Firecrawl's crawl options, v2 answers). */
export const FIRECRAWL_OPERATIONS: Operation<FirecrawlDeps>[] = [
  operation<FirecrawlDeps, CrawlJobRequest>({
    name: 'crawl',
    description:
      "Start crawling a site in the background (Firecrawl's crawl options); answers a job id at once. Then call check_crawl_status with it to read the pages as they come.",
    schema: FcCrawlV2Body,
    api: '/v2/crawl',
    run: (s, body, _signal, caller) => startCrawl(s, body, 'v2', LOCAL, caller),
  }),
  operation<FirecrawlDeps, BatchRequest>({
    name: 'batch_scrape',
    description:
      'Scrape a list of URLs in the background; answers a job id at once. Then call check_crawl_status with it.',
    schema: FcBatchBody,
    api: '/v2/batch/scrape',
    run: (s, body, _signal, caller) => startBatch(s, body, 'v2', LOCAL, caller),
  }),
  operation<FirecrawlDeps, { id: string; skip?: number; limit?: number }>({
    name: 'check_crawl_status',
    description:
      'Progress and pages of a crawl or batch_scrape job: status (scraping, completed, failed, cancelled), counts, and `limit` documents from `skip`.',
    schema: StatusInput,
    api: null,
    run: (s, input, _signal, caller) =>
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
        caller,
      ),
  }),
];
