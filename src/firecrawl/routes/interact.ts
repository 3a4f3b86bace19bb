import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clientGone } from '../../lib/client-gone.js';
import { interactWithScrape, stopInteraction } from '../interact.js';
import { FcBrowserDeleteReply } from '../schemas/browser.js';
import { FcExecuteBody, FcExecuteReply, FcScrapeIdParams } from '../schemas/interact.js';
import { fcErrors } from './job-routes.js';

const tags = ['firecrawl-v2'];

/** Interact after a scrape: a browser session on the scrape's page, driven as execute drives one. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/scrape/:scrapeId/interact',
    {
      schema: {
        tags,
        summary: "Run commands or a prompt on a scrape's page",
        params: FcScrapeIdParams,
        body: FcExecuteBody,
        response: { 200: FcExecuteReply, ...fcErrors },
      },
    },
    async (req, reply) =>
      interactWithScrape(app.firecrawl, req.params.scrapeId, req.body, clientGone(reply.raw), req.caller),
  );
  app.delete(
    '/v2/scrape/:scrapeId/interact',
    {
      schema: {
        tags,
        summary: "End the session of a scrape's interact",
        params: FcScrapeIdParams,
        response: { 200: FcBrowserDeleteReply, ...fcErrors },
      },
    },
    async (req) => stopInteraction(app.firecrawl, req.params.scrapeId, req.caller),
  );
};
export default route;
