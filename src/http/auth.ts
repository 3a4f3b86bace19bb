import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../errors.js';
import { DIRECTORY_PATH } from '../lib/web-bot-auth.js';
import type { TenantDirectory } from '../tenants/directory.js';
import { meteredAs } from '../tenants/metering.js';
import { OPEN_CALLER } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';

/** The web app's static files (routes/web.ts): names only, no directories, no query. */
const WEB_FILE = /^\/app\/[\w.-]+\.(?:js|css|svg|png)$/;

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts for: its key's tenant, and whether that key is an operator's. */
    caller: Caller;
    /** `caller.tenant`: the owner of what the request creates. */
    tenant: string;
  }
}

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
 * With keys declared (API_KEYS, ADMIN_API_KEYS, TENANTS_FILE), nothing but /health, the web app's static files
 * and the Web Bot Auth key directory answers without one. A key is compared as a SHA-256 digest with every declared digest in constant time, so
 * neither its content nor its length leaks through timing. Every request (a WebSocket upgrade too) gets
 * `req.caller`: its key's tenant; without keys, the one tenant `default`, which sees everything.
 */
export function registerApiKeys(app: FastifyInstance, tenants: TenantDirectory): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.decorateRequest('tenant', OPEN_CALLER.tenant);
  app.addHook('onRequest', async (req, reply) => {
    req.caller = OPEN_CALLER;
    if (tenants.open) return;
    if (req.url === '/health' || req.url.startsWith('/health?')) return;
    // Web Bot Auth verifiers fetch the signing key's directory; it holds nothing but the public key.
    if (req.url === DIRECTORY_PATH) return;
    // The web app's files hold no data: they load without a key, then send the one the operator types in.
    const reads = req.method === 'GET' || req.method === 'HEAD';
    if (reads && (req.url === '/' || WEB_FILE.test(req.url))) return;
    const key = keyOf(req.headers);
    const caller = key === null ? null : tenants.callerOf(digest(key));
    if (caller) {
      req.caller = caller;
      req.tenant = caller.tenant;
      return;
    }
    const refusal = key === null ? 'An API key is required: Authorization: Bearer <key>' : 'Invalid API key';
    if (String(req.headers.upgrade).toLowerCase() === 'websocket') {
      // A refused WebSocket upgrade: the socket left HTTP's hands, and an answer written to it would keep
      // the server from closing. It is closed at once after a 401 status line.
      req.raw.socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      req.raw.socket.destroySoon();
      return reply.hijack();
    }
    throw new UnauthorizedError(refusal);
  });
  // What a handler starts, the Firecrawl surface's LLM formats among it, is metered to the request's tenant.
  // A callback hook: the handler then runs inside meteredAs (a hook's promise would not carry the context).
  app.addHook('preHandler', (req, _reply, done) => meteredAs(req.caller.tenant, done));
}
