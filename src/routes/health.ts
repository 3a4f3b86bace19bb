import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    { schema: { summary: 'Liveness check', response: { 200: Type.String({ const: 'ok' }) } } },
    async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  );
  app.get(
    '/api/docs/openapi.json',
    { schema: { summary: 'This OpenAPI 3.1 document', hide: true } },
    async () => app.swagger(),
  );
};
export default route;
