import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../lib/client-gone.js';
import { ErrorReply } from '../schemas/common.js';
import { CrawlBody, CrawlReply } from '../schemas/crawl.js';
import type { CrawlPage } from '../schemas/crawl.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/crawl',
    {
      schema: {
        summary: 'Crawl a site and return every page at once',
        body: CrawlBody,
        response: { 200: CrawlReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const data: CrawlPage[] = [];
      const errors: { url: string; code: string; error: string }[] = [];
      for await (const event of app.services.crawl(req.body, clientGone(reply.raw))) {
        if (event.type === 'document') data.push(event.data);
        else if (event.type === 'error')
          errors.push({ url: event.url, code: event.code, error: event.error });
      }
      return { success: true as const, data, errors };
    },
  );
};
export default route;
