import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

/** The built web app: dist/web under the project root, whether this file runs from src/ (tsx) or dist/. */
const WEB_ROOT = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/**
 * Everything the app loads comes from this server (no CDN), and its pages may run only this server's scripts.
 * Screenshots are data: URLs.
 */
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The operators' web app: `GET /` and its files under `/app/`. The files hold no data, so they answer without
 * an API key (the app asks for one and sends it with every call it makes); see auth.ts.
 */
const route: FastifyPluginAsync = async (app) => {
  if (!existsSync(`${WEB_ROOT}index.html`)) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The web app is not built: npm run build'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/app/',
    index: false,
    wildcard: false,
    setHeaders: (res) => {
      res.header('content-security-policy', CSP);
      res.header('x-content-type-options', 'nosniff');
      res.header('cache-control', 'no-cache');
    },
  });
  app.get('/', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('content-security-policy', CSP).header('cache-control', 'no-cache').sendFile('index.html'),
  );
};
export default route;
