import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

/** Prometheus text format; behind API_KEYS like every route but /health (Prometheus sends a bearer token). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operator'],
        summary: 'Prometheus metrics of this process (text exposition format)',
        response: { 200: Type.String() },
      },
    },
    async (_req, reply) => {
      const { metrics } = app.services;
      return reply.type(metrics.contentType).send(await metrics.text());
    },
  );
};
export default route;
