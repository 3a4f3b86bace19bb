import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from './errors.js';

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

/** The key a request carries: `Authorization: Bearer <key>` (Firecrawl's SDKs) or `X-Api-Key`. */
function keyOf(headers: Record<string, string | string[] | undefined>): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1]!.trim();
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : null;
}

/**
 * When API_KEYS is set, nothing but /health answers without one of the keys. Keys are compared as SHA-256
 * digests in constant time, so neither their content nor their length leaks through timing.
 */
export function registerApiKeys(app: FastifyInstance, keys: string[]): void {
  if (keys.length === 0) return;
  const accepted = keys.map(digest);
  app.addHook('onRequest', async (req) => {
    if (req.url === '/health' || req.url.startsWith('/health?')) return;
    const key = keyOf(req.headers);
    if (key === null) throw new UnauthorizedError('An API key is required: Authorization: Bearer <key>');
    const given = digest(key);
    if (!accepted.some((k) => timingSafeEqual(k, given))) throw new UnauthorizedError('Invalid API key');
  });
}
