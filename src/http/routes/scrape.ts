import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Deadline } from '../../lib/deadline.js';
import { clientGone } from '../../lib/client-gone.js';
import { ErrorReply } from '../../schemas/common.js';
import { ScrapeBody, ScrapeReply } from '../../schemas/scrape.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/scrape',
    {
      schema: {
        summary: 'Scrape one page to Markdown, HTML, links, images or a screenshot',
        body: ScrapeBody,
        response: { 200: ScrapeReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const deadline = Deadline.after(req.body.timeout ?? 30000, clientGone(reply.raw));
      return { success: true as const, data: await app.services.scrape(req.body, deadline, req.caller) };
    },
  );
};
export default route;
