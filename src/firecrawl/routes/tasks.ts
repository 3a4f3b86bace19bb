import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FcExtractBody, FcLlmsTxtBody, FcTaskStatusReply, JobIdParams } from '../schemas/jobs.js';
import { Type } from 'typebox';
import { startExtract, startLlmsTxt, taskStatus } from '../jobs.js';
import type { Api } from '../jobs.js';
import { fcErrors } from './job-routes.js';

const Started = Type.Object({
  success: Type.Literal(true),
  id: Type.String(),
  urlTrace: Type.Optional(Type.Array(Type.String())),
  invalidURLs: Type.Optional(Type.Array(Type.String())),
  warning: Type.Optional(Type.String({ description: 'The fields accepted without effect on this server.' })),
});

/** Firecrawl's extract jobs (v2 and v1) and v1's llms.txt jobs. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    app.post(
      `/${api}/extract`,
      {
        schema: {
          tags,
          summary: 'Start an extract job (server LLM)',
          body: FcExtractBody,
          response: { 200: Started, ...fcErrors },
        },
      },
      async (req) => startExtract(app.firecrawl, req.body, api, req.caller),
    );
    app.get(
      `/${api}/extract/:id`,
      {
        schema: {
          tags,
          summary: 'An extract job: status and data',
          params: JobIdParams,
          response: { 200: FcTaskStatusReply, ...fcErrors },
        },
      },
      async (req) => taskStatus(app.firecrawl, req.params.id, 'extract', api, req.caller),
    );
  }
  const tags = ['firecrawl-v1'];
  app.post(
    '/v1/llmstxt',
    {
      schema: {
        tags,
        summary: 'Start an llms.txt job',
        body: FcLlmsTxtBody,
        response: { 200: Started, ...fcErrors },
      },
    },
    async (req) => startLlmsTxt(app.firecrawl, req.body, req.caller),
  );
  app.get(
    '/v1/llmstxt/:id',
    {
      schema: {
        tags,
        summary: 'An llms.txt job: status and data',
        params: JobIdParams,
        response: { 200: FcTaskStatusReply, ...fcErrors },
      },
    },
    async (req) => taskStatus(app.firecrawl, req.params.id, 'llmstxt', 'v1', req.caller),
  );
};
export default route;
