import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  FcBatchBody,
  FcCancelReply,
  FcErrorReply,
  FcErrorsReply,
  FcStartReply,
  FcStatusReply,
  JobIdParams,
  StatusQuery,
} from '../schemas/firecrawl.js';
import { cancelJob, jobErrors, jobStatus, startBatch } from '../services/firecrawl-jobs.js';
import type { Api } from '../services/firecrawl-jobs.js';

const errors = { '4xx': FcErrorReply, '5xx': FcErrorReply };
const kinds: 'batch_scrape'[] = ['batch_scrape'];

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
          response: { 200: FcStartReply, ...errors },
        },
      },
      async (req) => startBatch(app.services, req.body, api, req),
    );
    app.get(
      `/${api}/batch/scrape/:id`,
      {
        schema: {
          tags,
          summary: 'A batch scrape job: status, counts and one page of documents',
          params: JobIdParams,
          querystring: StatusQuery,
          response: { 200: FcStatusReply, ...errors },
        },
      },
      async (req) => jobStatus(app.services, req.params.id, kinds, api, req.query, req),
    );
    app.delete(
      `/${api}/batch/scrape/:id`,
      {
        schema: {
          tags,
          summary: 'Cancel a batch scrape job',
          params: JobIdParams,
          response: { 200: FcCancelReply, ...errors },
        },
      },
      async (req) => cancelJob(app.services, req.params.id, kinds, api),
    );
    const errorsRoute = {
      schema: {
        tags,
        summary: 'Failed URLs of a batch scrape',
        params: JobIdParams,
        response: { 200: FcErrorsReply, ...errors },
      },
    };
    app.get(`/${api}/batch/scrape/:id/errors`, errorsRoute, async (req) =>
      jobErrors(app.services, req.params.id, kinds, api),
    );
    if (api === 'v1') {
      app.delete(
        `/${api}/batch/scrape/:id/errors`,
        { ...errorsRoute, schema: { ...errorsRoute.schema, hide: true } },
        async (req) => jobErrors(app.services, req.params.id, kinds, api),
      );
    }
  }
};
export default route;
