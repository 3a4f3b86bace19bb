import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forwardOrClose, holdMessages } from '../../http/fleet-forward.js';
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
    async (req) => createSession(app.firecrawl, req.body, req, req.caller),
  );
  app.get(
    '/v2/browser',
    {
      schema: {
        tags,
        summary: "Browser sessions of the fleet: the key's tenant's (an operator's: every tenant's)",
        querystring: FcBrowserListQuery,
        response: { 200: FcBrowserListReply, ...fcErrors },
      },
    },
    async (req) => listSessions(app.firecrawl, req.query.status, req, req.caller, req.query.tenant),
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
    async (req) => deleteSession(app.firecrawl, req.params.id, req.caller),
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
    async (req, reply) =>
      executeInSession(app.firecrawl, req.params.id, req.body, clientGone(reply.raw), req.caller),
  );
  // The CDP proxy: the API key in a header (Authorization: Bearer), checked before the upgrade; another
  // tenant's session closes the socket as an unknown one does, before any CDP message is passed.
  app.get(
    '/v2/browser/:id/cdp',
    { websocket: true, schema: { params: FcBrowserParams } },
    async (socket, req) => {
      const held = holdMessages(socket);
      try {
        await app.firecrawl.services.sessions.connectCdp(req.params.id, socket, req.caller);
        held.replay();
      } catch (err) {
        forwardOrClose(app, socket, req, err, held);
      }
    },
  );
};
export default route;
