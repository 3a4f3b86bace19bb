import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { ErrorReply } from '../../schemas/common.js';
import { SearchBody, SearchReply } from '../../schemas/search.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/search',
    {
      schema: {
        summary: 'Search the web, optionally scraping every result page',
        body: SearchBody,
        response: { 200: SearchReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => ({
      success: true as const,
      data: await app.services.search(req.body, clientGone(reply.raw), req.caller),
    }),
  );
};
export default route;
