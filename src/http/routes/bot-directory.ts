import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError } from '../../errors.js';
import { DIRECTORY_PATH } from '../../lib/web-bot-auth.js';
import type { WebBotAuth } from '../../lib/web-bot-auth.js';

/**
 * The key directory of Web Bot Auth: the public key that signs this service's requests, signed for the
 * authority it is asked from. Verifiers fetch it without an API key (http/auth.ts lets it through).
 */
const route: FastifyPluginAsyncTypebox<{ webBotAuth: WebBotAuth | null }> = async (app, { webBotAuth }) => {
  app.get(
    DIRECTORY_PATH,
    { schema: { summary: "Web Bot Auth: the public key of this service's request signatures", hide: true } },
    async (req, reply) => {
      if (!webBotAuth)
        throw new NotFoundError('This service signs no requests (WEB_BOT_AUTH_KEY is not set)');
      const { headers, body } = webBotAuth.directory(req.host);
      // As bytes: a string would get `; charset=utf-8` added to the registered media type.
      return reply.headers(headers).send(Buffer.from(body));
    },
  );
};
export default route;
