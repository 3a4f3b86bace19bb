import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness check: `ok`, or 503 with the reason (Redis unreachable in the distributed mode)',
        response: { 200: Type.String({ const: 'ok' }), 503: Type.String() },
      },
    },
    async (_req, reply) => {
      const problem = await app.services.health();
      return reply
        .code(problem === null ? 200 : 503)
        .type('text/plain; charset=utf-8')
        .send(problem ?? 'ok');
    },
  );
  app.get(
    '/api/docs/openapi.json',
    { schema: { summary: 'This OpenAPI 3.1 document', hide: true } },
    async () => app.swagger(),
  );
};
export default route;
