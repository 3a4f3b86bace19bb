import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { ErrorReply } from '../../schemas/common.js';
import { ExtractBody, ExtractReply } from '../../schemas/extract.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/extract',
    {
      schema: {
        summary:
          'Extract structured data from 1-10 pages by CSS selectors and/or an LLM, validated by JSON Schema',
        body: ExtractBody,
        response: { 200: ExtractReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => app.services.extract(req.body, clientGone(reply.raw), req.caller),
  );
};
export default route;
