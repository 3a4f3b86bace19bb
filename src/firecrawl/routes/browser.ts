import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toAppError } from '../../errors.js';
import { clientGone } from '../../lib/client-gone.js';
import { createSession, deleteSession, listSessions } from '../browser.js';
import { executeInSession } from '../interact.js';
import {
  FcBrowserCreateBody,
  FcBrowserCreateReply,
  FcBrowserDeleteReply,
  FcBrowserListQuery,
  FcBrowserListReply,
  FcBrowserParams,
} from '../schemas/browser.js';
import { FcExecuteBody, FcExecuteReply } from '../schemas/interact.js';
import { fcErrors } from './job-routes.js';

const tags = ['firecrawl-v2'];

/** Firecrawl's browser sessions: create, list, end, execute, and the CDP proxy's WebSocket. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/browser',
    {
      schema: {
        tags,
        summary: 'Start a browser session',
        body: FcBrowserCreateBody,
        response: { 200: FcBrowserCreateReply, ...fcErrors },
      },
    },
    async (req) => createSession(app.firecrawl, req.body, req, req.tenant),
  );
  app.get(
    '/v2/browser',
    {
      schema: {
        tags,
        summary: 'Browser sessions of the fleet',
        querystring: FcBrowserListQuery,
        response: { 200: FcBrowserListReply, ...fcErrors },
      },
    },
    async (req) => listSessions(app.firecrawl, req.query.status, req),
  );
  app.delete(
    '/v2/browser/:id',
    {
      schema: {
        tags,
        summary: 'End a browser session',
        params: FcBrowserParams,
        response: { 200: FcBrowserDeleteReply, ...fcErrors },
      },
    },
    async (req) => deleteSession(app.firecrawl, req.params.id),
  );
  app.post(
    '/v2/browser/:id/execute',
    {
      schema: {
        tags,
        summary: 'Run commands in a browser session',
        params: FcBrowserParams,
        body: FcExecuteBody,
        response: { 200: FcExecuteReply, ...fcErrors },
      },
    },
    async (req, reply) => executeInSession(app.firecrawl, req.params.id, req.body, clientGone(reply.raw)),
  );
  // The CDP proxy: the API key in a header (Authorization: Bearer), checked before the upgrade.
  app.get(
    '/v2/browser/:id/cdp',
    { websocket: true, schema: { params: FcBrowserParams } },
    async (socket, req) => {
      await app.firecrawl.services.sessions.connectCdp(req.params.id, socket).catch((err: unknown) => {
        socket.close(4000 + (toAppError(err).status % 1000), toAppError(err).message.slice(0, 120));
      });
    },
  );
};
export default route;
