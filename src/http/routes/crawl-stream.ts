import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { writeEventStream } from './event-stream.js';
import { ErrorReply } from '../../schemas/common.js';
import { CrawlBody, CrawlEvent } from '../../schemas/crawl.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/crawl/stream',
    {
      schema: {
        summary: 'Crawl a site as Server-Sent Events (status, document, error, complete)',
        body: CrawlBody,
        response: {
          200: {
            description: 'text/event-stream; each event is `data: <CrawlEvent JSON>`',
            content: { 'text/event-stream': { schema: CrawlEvent } },
          },
          '4xx': ErrorReply,
          '5xx': ErrorReply,
        },
      },
    },
    async (req, reply) => {
      const gone = AbortSignal.any([clientGone(reply.raw), app.shuttingDown]);
      await writeEventStream(reply, app.services.crawl(req.body, gone, req.caller), gone);
    },
  );
};
export default route;
