import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import {
  FcConcurrencyReply,
  FcMapV1Body,
  FcMapV1Reply,
  FcMapV2Body,
  FcMapV2Reply,
  FcQueueStatusReply,
  FcScrapeBody,
  FcScrapeReply,
  FcSearchV1Body,
  FcSearchV1Reply,
  FcSearchV2Body,
  FcSearchV2Reply,
} from '../schemas/pages.js';
import { fcMap, fcQueueStatus, fcScrape, fcSearch } from '../pages.js';
import type { Api } from '../jobs.js';
import { fcErrors } from './job-routes.js';

/** Firecrawl's one-call operations and team endpoints, v2 and v1, at the root (`apiUrl` = this server). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    app.post(
      `/${api}/scrape`,
      {
        schema: {
          tags,
          summary: 'Scrape one page (Firecrawl)',
          body: FcScrapeBody,
          response: { 200: FcScrapeReply, ...fcErrors },
        },
      },
      async (req, reply) => fcScrape(app.firecrawl, req.body, api, clientGone(reply.raw), req.caller),
    );
    app.post(
      `/${api}/map`,
      {
        schema: {
          tags,
          summary: "A site's URLs (Firecrawl)",
          body: api === 'v2' ? FcMapV2Body : FcMapV1Body,
          response: { 200: api === 'v2' ? FcMapV2Reply : FcMapV1Reply, ...fcErrors },
        },
      },
      async (req, reply) => fcMap(app.firecrawl, req.body, api, clientGone(reply.raw), req.caller),
    );
    app.post(
      `/${api}/search`,
      {
        schema: {
          tags,
          summary: 'Search the web, optionally scraping the results (Firecrawl)',
          body: api === 'v2' ? FcSearchV2Body : FcSearchV1Body,
          response: { 200: api === 'v2' ? FcSearchV2Reply : FcSearchV1Reply, ...fcErrors },
        },
      },
      async (req, reply) => fcSearch(app.firecrawl, req.body, api, clientGone(reply.raw), req.caller),
    );
    app.get(
      `/${api}/team/queue-status`,
      {
        schema: {
          tags,
          summary: "The job engine's queue: the key's tenant's jobs (an operator's: every tenant's)",
          response: { 200: FcQueueStatusReply, ...fcErrors },
        },
      },
      async (req) => fcQueueStatus(app.firecrawl, req.caller),
    );
    app.get(
      `/${api}/concurrency-check`,
      {
        schema: {
          tags,
          summary: 'Jobs running and the most run at once',
          response: { 200: FcConcurrencyReply, ...fcErrors },
        },
      },
      async (req) => {
        const q = await app.firecrawl.services.jobs.queueStatus(req.caller);
        return { success: true as const, data: { concurrency: q.active, maxConcurrency: q.maxConcurrency } };
      },
    );
  }
};
export default route;
