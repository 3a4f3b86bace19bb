import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { ErrorReply } from '../../schemas/common.js';
import { CrawlBody, CrawlReply } from '../../schemas/crawl.js';
import { sendCrawlAnswer } from './crawl-answer.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/crawl',
    {
      schema: {
        summary: 'Crawl a site and return every page at once (written as the pages come)',
        body: CrawlBody,
        response: { 200: CrawlReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const gone = AbortSignal.any([clientGone(reply.raw), app.shuttingDown]);
      return sendCrawlAnswer(reply, app.services.crawl(req.body, gone, req.caller));
    },
  );
};
export default route;
