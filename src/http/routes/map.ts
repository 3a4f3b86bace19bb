import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { Deadline } from '../../lib/deadline.js';
import { ErrorReply } from '../../schemas/common.js';
import { MapBody, MapReply } from '../../schemas/crawl.js';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/map',
    {
      schema: {
        summary: "Discover a site's URLs from sitemaps and in-page links",
        body: MapBody,
        response: { 200: MapReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const deadline = Deadline.after(req.body.timeout ?? 30000, clientGone(reply.raw));
      return { success: true as const, links: await app.services.map(req.body, deadline, req.caller) };
    },
  );
};
export default route;
