import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FcBatchBody, FcStartReply } from '../schemas/jobs.js';
import { startBatch } from '../jobs.js';
import type { Api } from '../jobs.js';
import { fcErrors, registerJobRoutes } from './job-routes.js';

/** Firecrawl's batch scrape job routes, v2 and v1. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    app.post(
      `/${api}/batch/scrape`,
      {
        schema: {
          tags,
          summary: 'Start a batch scrape job (1 to 1,000 URLs)',
          body: FcBatchBody,
          response: { 200: FcStartReply, ...fcErrors },
        },
      },
      async (req) => startBatch(app.firecrawl, req.body, api, req, req.caller),
    );
    registerJobRoutes(app, { api, path: 'batch/scrape', noun: 'batch scrape', kinds: ['batch_scrape'] });
  }
};
export default route;
