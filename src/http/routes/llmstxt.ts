import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { ErrorReply } from '../../schemas/common.js';
import { LlmsTxtBody, LlmsTxtReply } from '../../schemas/search.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/llmstxt',
    {
      schema: {
        summary: 'Generate llms.txt (and llms-full.txt) for a website',
        body: LlmsTxtBody,
        response: { 200: LlmsTxtReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => ({
      success: true as const,
      ...(await app.services.llmstxt(req.body, clientGone(reply.raw), req.caller)),
    }),
  );
};
export default route;
