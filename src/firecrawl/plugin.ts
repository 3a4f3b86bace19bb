import multipart from '@fastify/multipart';
import type { FastifyPluginAsync } from 'fastify';
import { errorHandlerFor } from '../http/error-handler.js';
import type { FirecrawlDeps } from './deps.js';
import { firecrawlErrorBody } from './field-errors.js';
import agentRoutes from './routes/agent.js';
import batchRoutes from './routes/batch.js';
import browserLiveRoute from './routes/browser-live.js';
import browserRoutes from './routes/browser.js';
import crawlRoutes from './routes/crawl.js';
import interactRoutes from './routes/interact.js';
import monitorRoutes from './routes/monitor.js';
import pageRoutes from './routes/pages.js';
import parseRoute from './routes/parse.js';
import taskRoutes from './routes/tasks.js';
import usageRoutes from './routes/usage.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Firecrawl's surface: the operations and what its options and documents need (this plugin only). */
    firecrawl: FirecrawlDeps;
  }
}

export interface FirecrawlPluginOptions {
  deps: FirecrawlDeps;
  /** Largest upload of `/v2/parse` (MAX_RESPONSE_BYTES: as large as a fetched page may be). */
  maxUploadBytes: number;
}

/**
 * Firecrawl's API (v2 and v1) at the root, as one plugin: its routes, schemas and option mapping live in
 * src/firecrawl/. Its error handler answers a target's failure (our 502: unreachable, too large, too many
 * redirects) with 500 as Firecrawl does: its SDK retries a 502 three times, fetching the failing page again;
 * a request that fails a check by field gets Firecrawl's `details` (field-errors.ts).
 */
export const firecrawlPlugin: FastifyPluginAsync<FirecrawlPluginOptions> = async (app, options) => {
  app.decorate('firecrawl', options.deps);
  app.setErrorHandler(errorHandlerFor((status) => (status === 502 ? 500 : status), firecrawlErrorBody));
  await app.register(pageRoutes);
  await app.register(usageRoutes);
  await app.register(crawlRoutes);
  await app.register(batchRoutes);
  await app.register(taskRoutes);
  await app.register(browserRoutes);
  await app.register(browserLiveRoute);
  await app.register(interactRoutes);
  await app.register(agentRoutes);
  await app.register(monitorRoutes);
  // Uploads only where they are read: elsewhere multipart stays an unsupported media type.
  await app.register(async (uploads) => {
    await uploads.register(multipart, {
      limits: { fileSize: options.maxUploadBytes, files: 1, fields: 4, fieldSize: 1_000_000 },
    });
    await uploads.register(parseRoute);
  });
};
