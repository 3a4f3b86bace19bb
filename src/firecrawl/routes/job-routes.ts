import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import {
  FcCancelReply,
  FcErrorReply,
  FcErrorsReply,
  FcStatusReply,
  JobIdParams,
  StatusQuery,
} from '../schemas/jobs.js';
import { cancelJob, jobErrors, jobStatus } from '../jobs.js';
import { watchJob } from './job-watch.js';
import type { Api } from '../jobs.js';

type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export const fcErrors = { '4xx': FcErrorReply, '5xx': FcErrorReply };

/**
 * The routes every Firecrawl job family has: status with paging, cancel, errors (and, on v1, errors by
 * DELETE, which its SDK sends).
 */
export function registerJobRoutes(
  app: App,
  family: { api: Api; path: string; noun: string; kinds: ('crawl' | 'batch_scrape')[] },
): void {
  const { api, path, noun, kinds } = family;
  const tags = [`firecrawl-${api}`];
  const params = JobIdParams;
  app.route({
    method: 'GET',
    url: `/${api}/${path}/:id`,
    schema: {
      tags,
      summary: `A ${noun} job: status, counts and one page of documents (a WebSocket upgrade watches it)`,
      params,
      querystring: StatusQuery,
      response: { 200: FcStatusReply, ...fcErrors },
    },
    handler: async (req) => jobStatus(app.firecrawl, req.params.id, kinds, api, req.query, req, req.caller),
    wsHandler: (socket, req) =>
      void watchJob(socket, app.firecrawl, {
        id: (req.params as { id: string }).id,
        kinds,
        api,
        origin: req,
        caller: req.caller,
      }),
  });
  app.delete(
    `/${api}/${path}/:id`,
    {
      schema: {
        tags,
        summary: `Cancel a ${noun} job`,
        params,
        response: { 200: FcCancelReply, ...fcErrors },
      },
    },
    async (req) => cancelJob(app.firecrawl, req.params.id, kinds, api, req.caller),
  );
  const summary = `Failed URLs and robots-blocked URLs of a ${noun} job`;
  for (const method of api === 'v1' ? (['GET', 'DELETE'] as const) : (['GET'] as const)) {
    app.route({
      method,
      url: `/${api}/${path}/:id/errors`,
      schema: {
        tags,
        summary,
        hide: method === 'DELETE',
        params,
        response: { 200: FcErrorsReply, ...fcErrors },
      },
      handler: async (req) => jobErrors(app.firecrawl, req.params.id, kinds, api, req.caller),
    });
  }
}
