import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The host a request targets (body `url`, or the first of `urls`), for the access log. */
function targetHost(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { url, urls } = body as { url?: unknown; urls?: unknown };
  const raw =
    typeof url === 'string' ? url : Array.isArray(urls) && typeof urls[0] === 'string' ? urls[0] : undefined;
  if (!raw) return undefined;
  try {
    return new URL(raw).host;
  } catch {
    return undefined;
  }
}

/**
 * One access-log line per request: method, route, status, duration and target host. Bodies, headers and
 * query strings are never logged, so keys (`llmApiKey`, `Authorization`, cookies) cannot leak.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    req.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? req.url.split('?')[0],
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime),
        target: targetHost(req.body),
      },
      'request',
    );
  });
}
