import Fastify, { LogController } from 'fastify';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import { registerAllowedHosts } from '../http/allowed-hosts.js';
import { registerApiKeys } from '../http/auth.js';
import { errorHandler, notFoundHandler } from '../http/error-handler.js';
import { SessionForwarding, registerFleetHops } from '../http/fleet-forward.js';
import { registerRequestLog } from '../http/request-log.js';
import crawlStreamRoute from '../http/routes/crawl-stream.js';
import crawlRoute from '../http/routes/crawl.js';
import extractRoute from '../http/routes/extract.js';
import webRoutes from '../http/routes/web.js';
import metricsRoute from '../http/routes/metrics.js';
import operatorRoutes from '../http/routes/operator.js';
import profileRoutes from '../http/routes/profiles.js';
import mcpRoute from '../http/routes/mcp.js';
import parseRoute from '../http/routes/parse.js';
import healthRoutes from '../http/routes/health.js';
import botDirectoryRoute from '../http/routes/bot-directory.js';
import llmstxtRoute from '../http/routes/llmstxt.js';
import searchRoute from '../http/routes/search.js';
import mapRoute from '../http/routes/map.js';
import scrapeRoute from '../http/routes/scrape.js';
import usageRoute from '../http/routes/usage.js';
import { firecrawlPlugin } from '../firecrawl/plugin.js';
import type { Services } from '../operations/services.js';
import { compose } from './compose.js';
import type { AppDeps } from './compose.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    /** Aborts when the server starts closing: long streams end instead of holding the shutdown. */
    shuttingDown: AbortSignal;
    /** Characters of an MCP tool result at most (MCP_MAX_CHARS). */
    mcpMaxChars: number;
  }
}

export type { AppDeps };

/** Builds the application; importing or calling this starts no listener. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel },
    // One line per request from registerRequestLog instead of Fastify's two (which include the URL).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    ajv: {
      // Strict input: unknown fields and wrong types are 400s, never silently dropped or coerced.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every operation takes JSON; anything else is a 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  // Firecrawl's v1 SDK sends `Content-Type: application/json` with its body-less DELETEs; an empty body is no
  // body there. A POST still needs a valid JSON body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' && req.method !== 'POST') return done(null, undefined);
    parseJson(req, body as string, done);
  });
  const { services, firecrawl } = compose(deps, app.log);
  app.decorate('services', services);
  app.decorate('mcpMaxChars', deps.config.mcpMaxChars);
  app.addHook('onClose', async () => app.services.close());
  // Jobs a dead process left running resume once the service is ready to serve their status.
  app.addHook('onReady', async () => app.services.jobs.resumeInterrupted());
  // While closing, answers in flight close their connection, so keep-alive clients do not hold the
  // server open, and streams stop.
  const closing = new AbortController();
  app.decorate('shuttingDown', closing.signal);
  app.addHook('preClose', async () => closing.abort());
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing.signal.aborted) void reply.header('connection', 'close');
    return payload;
  });
  app.setErrorHandler(errorHandler);
  const fleet = deps.config.redis?.fleet ?? null;
  const forwarding = fleet
    ? new SessionForwarding(fleet, (id, url, why) => services.sessions.holderLost(id, url, why), app.log)
    : null;
  registerFleetHops(app as unknown as FastifyInstance, fleet, forwarding);
  registerRequestLog(app);
  // Every answer counted by its route's template (never the path as sent: bounded labels); 404s as one.
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    app.services.metrics.request(route, req.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  registerAllowedHosts(app as unknown as FastifyInstance, deps.config.allowedHosts);
  registerApiKeys(app as unknown as FastifyInstance, deps.config.tenants);
  app.setNotFoundHandler(notFoundHandler);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pagewright web content API',
        version: '1.0.0',
        description: 'Scrape, crawl, map, search, extract and llms.txt: web pages as LLM-ready output.',
      },
    },
  });
  // Firecrawl's job watchers (the SDKs' WebSocket on a job's status URL) and the browser sessions' CDP
  // proxy, whose clients send larger frames (Playwright sends its 350 KB injected script in one).
  await app.register(websocket, { options: { maxPayload: 4 * 1024 * 1024 } });
  await app.register(healthRoutes);
  await app.register(botDirectoryRoute, { webBotAuth: deps.config.webBotAuth });
  await app.register(scrapeRoute);
  await app.register(crawlRoute);
  await app.register(crawlStreamRoute);
  await app.register(mapRoute);
  await app.register(extractRoute);
  await app.register(searchRoute);
  await app.register(llmstxtRoute);
  await app.register(firecrawlPlugin, { deps: firecrawl, maxUploadBytes: deps.config.maxResponseBytes });
  await app.register(mcpRoute);
  await app.register(operatorRoutes);
  await app.register(usageRoute);
  await app.register(profileRoutes);
  await app.register(metricsRoute);
  await app.register(webRoutes);
  // Uploads (parse): one file, as large as a fetched page may be; multipart is read by this route only.
  await app.register(async (uploads) => {
    await uploads.register(multipart, {
      limits: { fileSize: deps.config.maxResponseBytes, files: 1, fields: 4, fieldSize: 1_000_000 },
    });
    await uploads.register(parseRoute);
  });
  return app as unknown as FastifyInstance;
}
