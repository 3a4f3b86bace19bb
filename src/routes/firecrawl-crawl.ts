import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  FcActiveReply,
  FcCancelReply,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcErrorReply,
  FcErrorsReply,
  FcStartReply,
  FcStatusReply,
  JobIdParams,
  StatusQuery,
} from '../schemas/firecrawl.js';
import { activeCrawls, cancelJob, jobErrors, jobStatus, startCrawl } from '../services/firecrawl-jobs.js';
import type { Api } from '../services/firecrawl-jobs.js';

const errors = { '4xx': FcErrorReply, '5xx': FcErrorReply };

/** Firecrawl's crawl job routes, v2 and v1 (v1's status also serves batch ids: its SDK polls them there). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    const Body = api === 'v2' ? FcCrawlV2Body : FcCrawlV1Body;
    const statusKinds: ('crawl' | 'batch_scrape')[] = api === 'v1' ? ['crawl', 'batch_scrape'] : ['crawl'];
    app.post(
      `/${api}/crawl`,
      {
        schema: {
          tags,
          summary: 'Start a crawl job',
          body: Body,
          response: { 200: FcStartReply, ...errors },
        },
      },
      async (req) => startCrawl(app.services, req.body, api, req),
    );
    app.get(
      `/${api}/crawl/active`,
      { schema: { tags, summary: 'Crawl jobs still running', response: { 200: FcActiveReply, ...errors } } },
      async () => activeCrawls(app.services),
    );
    app.get(
      `/${api}/crawl/:id`,
      {
        schema: {
          tags,
          summary: 'A crawl job: status, counts and one page of documents',
          params: JobIdParams,
          querystring: StatusQuery,
          response: { 200: FcStatusReply, ...errors },
        },
      },
      async (req) => jobStatus(app.services, req.params.id, statusKinds, api, req.query, req),
    );
    app.delete(
      `/${api}/crawl/:id`,
      {
        schema: {
          tags,
          summary: 'Cancel a crawl job',
          params: JobIdParams,
          response: { 200: FcCancelReply, ...errors },
        },
      },
      async (req) => cancelJob(app.services, req.params.id, statusKinds, api),
    );
    const errorsRoute = {
      schema: {
        tags,
        summary: 'Failed URLs and robots-blocked URLs of a crawl',
        params: JobIdParams,
        response: { 200: FcErrorsReply, ...errors },
      },
    };
    app.get(`/${api}/crawl/:id/errors`, errorsRoute, async (req) =>
      jobErrors(app.services, req.params.id, statusKinds, api),
    );
    // v1's SDK asks for errors with DELETE: answered as a read.
    if (api === 'v1') {
      app.delete(
        `/${api}/crawl/:id/errors`,
        { ...errorsRoute, schema: { ...errorsRoute.schema, hide: true } },
        async (req) => jobErrors(app.services, req.params.id, statusKinds, api),
      );
    }
  }
};
export default route;
