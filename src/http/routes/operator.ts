import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JobListQuery, JobListReply, ServiceStatus } from '../../schemas/operator.js';
import { recentJobs, serviceStatus } from '../../operations/operator.js';

/** What the operators' web app reads: the jobs of every kind, and what the service is doing now. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['operator'];
  app.get(
    '/api/v1/jobs',
    {
      schema: {
        tags,
        summary: 'Crawl, batch, extract and llms.txt jobs, newest first',
        querystring: JobListQuery,
        response: { 200: JobListReply },
      },
    },
    async (req) => {
      const limit = Math.min(500, Math.max(1, Number(req.query.limit ?? 100)));
      return { success: true as const, data: await recentJobs(app.services, limit) };
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
