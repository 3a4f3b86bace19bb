import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../errors.js';

/** The web app's static files (routes/web.ts): names only, no directories, no query. */
const WEB_FILE = /^\/app\/[\w.-]+\.(?:js|css|svg|png)$/;

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, for the caps counted per key (MAX_MONITORS_PER_KEY, MAX_AGENT_RUNS_PER_KEY): see tenantOf. */
    tenant: string;
  }
}

/** The one caller of a service without API_KEYS (and of the routes that need no key). */
export const DEFAULT_TENANT = 'default';

/**
 * The caller a key stands for: `key-` and the first 12 hex digits of its SHA-256, so that records and counts
 * name the caller without holding the key. Like any hash of it, the name lets its reader test guesses of a key
 * of little entropy, so it is not logged either.
 */
const tenantOf = (keyDigest: Buffer): string => `key-${keyDigest.toString('hex').slice(0, 12)}`;

/**
 * The key a request carries: `Authorization: Bearer <key>` (Firecrawl's SDKs), `X-Api-Key`, or on a WebSocket
 * upgrade the first subprotocol.
 */
function keyOf(headers: Record<string, string | string[] | undefined>): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1]!.trim();
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  // Firecrawl's job watchers send the key as the WebSocket subprotocol (browsers cannot set headers there).
  const protocol = headers['sec-websocket-protocol'];
  if (String(headers.upgrade).toLowerCase() === 'websocket' && typeof protocol === 'string')
    return protocol.split(',')[0]!.trim();
  return null;
}

/**
 * When API_KEYS is set, nothing but /health and the web app's static files answer without one of the keys. Keys are compared as SHA-256
 * digests in constant time, so neither their content nor their length leaks through timing. Every request
 * (a WebSocket upgrade too) gets `req.tenant`: the key's caller, or DEFAULT_TENANT without keys.
 */
export function registerApiKeys(app: FastifyInstance, keys: string[]): void {
  app.decorateRequest('tenant', DEFAULT_TENANT);
  if (keys.length === 0) return;
  const accepted = keys.map(digest);
  app.addHook('onRequest', async (req, reply) => {
    if (req.url === '/health' || req.url.startsWith('/health?')) return;
    // The web app's files hold no data: they load without a key, then send the one the operator types in.
    const reads = req.method === 'GET' || req.method === 'HEAD';
    if (reads && (req.url === '/' || WEB_FILE.test(req.url))) return;
    const key = keyOf(req.headers);
    const given = key === null ? null : digest(key);
    if (given !== null && accepted.some((k) => timingSafeEqual(k, given))) {
      req.tenant = tenantOf(given);
      return;
    }
    const refusal =
      given === null ? 'An API key is required: Authorization: Bearer <key>' : 'Invalid API key';
    if (String(req.headers.upgrade).toLowerCase() === 'websocket') {
      // A refused WebSocket upgrade: the socket left HTTP's hands, and an answer written to it would keep
      // the server from closing. It is closed at once after a 401 status line.
      req.raw.socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      req.raw.socket.destroySoon();
      return reply.hijack();
    }
    throw new UnauthorizedError(refusal);
  });
}
