import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JobListQuery, JobListReply, ServiceStatus } from '../../schemas/operator.js';
import { recentJobs, serviceStatus } from '../../operations/operator.js';

/**
 * What the web app reads: the jobs of every kind (the key's tenant's; an operator's, every tenant's or the one
 * `?tenant=` names), and what the service is doing now.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['operator'];
  app.get(
    '/api/v1/jobs',
    {
      schema: {
        tags,
        summary: "Jobs of every kind, newest first: the key's tenant's (an operator's: every tenant's)",
        querystring: JobListQuery,
        response: { 200: JobListReply },
      },
    },
    async (req) => {
      const limit = Math.min(500, Math.max(1, Number(req.query.limit ?? 100)));
      const data = await recentJobs(app.services, limit, req.caller, req.query.tenant);
      return { success: true as const, data, caller: req.caller };
    },
  );
  app.get(
    '/api/v1/status',
    {
      schema: {
        tags,
        summary: 'Workers, queue depth, content workers, browser pool, Redis and proxies, now',
        response: { 200: ServiceStatus },
      },
    },
    async () => serviceStatus(app.services),
  );
};
export default route;
