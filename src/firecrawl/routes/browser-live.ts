import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forwardOrClose, holdMessages } from '../../http/fleet-forward.js';
import { FcBrowserLiveQuery, FcBrowserParams } from '../schemas/browser.js';

/**
 * The live view's WebSocket (the web app's `#/sessions/{id}` page): the session's screencast, and with
 * `?interactive=true` the viewer's clicks, scrolls and keys. Behind the API key like every route; a browser
 * sends it as the WebSocket subprotocol (it cannot set headers there), never in the URL.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/browser/:id/live',
    { websocket: true, schema: { params: FcBrowserParams, querystring: FcBrowserLiveQuery } },
    async (socket, req) => {
      const held = holdMessages(socket);
      const { sessions } = app.firecrawl.services;
      try {
        await sessions.connectLive(req.params.id, socket, req.query.interactive === 'true', req.caller);
        held.replay();
      } catch (err) {
        forwardOrClose(app, socket, req, err, held);
      }
    },
  );
};
export default route;
