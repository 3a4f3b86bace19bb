import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorHandlerFor } from '../../http/error-handler.js';
import { clientGone } from '../../lib/client-gone.js';
import { firecrawlErrorBody } from '../field-errors.js';
import {
  FcActiveReply,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcParamsPreviewBody,
  FcParamsPreviewReply,
  FcStartReply,
} from '../schemas/jobs.js';
import { activeCrawls, startCrawl } from '../jobs.js';
import type { Api } from '../jobs.js';
import { crawlParamsPreview } from '../crawl-prompt.js';
import { fcErrors, registerJobRoutes } from './job-routes.js';
import { TenantFilter } from '../../schemas/operator.js';

const ActiveQuery = Type.Object({ tenant: Type.Optional(TenantFilter) }, { additionalProperties: false });

/**
 * Routes that ask the server's LLM answer its failure as LLM_FAILED's own 502 (which the SDK retries, as the
 * code is retryable), not the 500 this plugin answers a target's 502 with: they fetch no target.
 */
const llmRouteErrors = errorHandlerFor(undefined, firecrawlErrorBody);

/** Firecrawl's crawl job routes, v2 and v1 (v1's status also serves batch ids: its SDK polls them there). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/crawl/params-preview',
    {
      schema: {
        tags: ['firecrawl-v2'],
        summary: "The crawl options a prompt stands for, derived by the server's LLM",
        body: FcParamsPreviewBody,
        response: { 200: FcParamsPreviewReply, ...fcErrors },
      },
      errorHandler: llmRouteErrors,
    },
    async (req, reply) => crawlParamsPreview(app.firecrawl, req.body, clientGone(reply.raw)),
  );
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    const body = api === 'v2' ? FcCrawlV2Body : FcCrawlV1Body;
    app.post(
      `/${api}/crawl`,
      {
        schema: { tags, summary: 'Start a crawl job', body, response: { 200: FcStartReply, ...fcErrors } },
        errorHandler: llmRouteErrors,
      },
      async (req, reply) => startCrawl(app.firecrawl, req.body, api, req, req.caller, clientGone(reply.raw)),
    );
    for (const path of ['active', 'ongoing']) {
      app.get(
        `/${api}/crawl/${path}`,
        {
          schema: {
            tags,
            summary: "Crawl jobs still running: the key's tenant's (an operator's: every tenant's)",
            hide: path === 'ongoing',
            querystring: ActiveQuery,
            response: { 200: FcActiveReply, ...fcErrors },
          },
        },
        async (req) => activeCrawls(app.firecrawl, req.caller, api, req.query.tenant),
      );
    }
    const kinds: ('crawl' | 'batch_scrape')[] = api === 'v1' ? ['crawl', 'batch_scrape'] : ['crawl'];
    registerJobRoutes(app, { api, path: 'crawl', noun: 'crawl', kinds });
  }
};
export default route;
