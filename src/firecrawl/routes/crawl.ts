import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FcActiveReply, FcCrawlV1Body, FcCrawlV2Body, FcStartReply } from '../schemas/jobs.js';
import { activeCrawls, startCrawl } from '../jobs.js';
import type { Api } from '../jobs.js';
import { fcErrors, registerJobRoutes } from './job-routes.js';

/** Firecrawl's crawl job routes, v2 and v1 (v1's status also serves batch ids: its SDK polls them there). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    const body = api === 'v2' ? FcCrawlV2Body : FcCrawlV1Body;
    app.post(
      `/${api}/crawl`,
      { schema: { tags, summary: 'Start a crawl job', body, response: { 200: FcStartReply, ...fcErrors } } },
      async (req) => startCrawl(app.firecrawl, req.body, api, req),
    );
    app.get(
      `/${api}/crawl/active`,
      {
        schema: { tags, summary: 'Crawl jobs still running', response: { 200: FcActiveReply, ...fcErrors } },
      },
      async () => activeCrawls(app.firecrawl),
    );
    const kinds: ('crawl' | 'batch_scrape')[] = api === 'v1' ? ['crawl', 'batch_scrape'] : ['crawl'];
    registerJobRoutes(app, { api, path: 'crawl', noun: 'crawl', kinds });
  }
};
export default route;
