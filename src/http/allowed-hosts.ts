import type { FastifyInstance } from 'fastify';
import { HostNotAllowedError } from '../errors.js';

/** The host name of a Host header: lower case, an IPv6 literal without brackets, no port. */
function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']'));
  return value.split(':')[0]!;
}

/**
 * Refuses requests whose Host header names another host than the service's own (ALLOWED_HOSTS), before
 * anything else runs: a page in a browser on this machine that rebinds its DNS name to 127.0.0.1 sends its
 * own name as Host, and is refused. A request without Host (HTTP/1.0) is no browser's and passes.
 */
export function registerAllowedHosts(app: FastifyInstance, hosts: string[] | null): void {
  if (hosts === null) return;
  const allowed = new Set(hosts);
  app.addHook('onRequest', async (req, reply) => {
    const header = req.headers.host;
    if (header === undefined || allowed.has(hostNameOf(header))) return;
    if (String(req.headers.upgrade).toLowerCase() === 'websocket') {
      // As for a refused key: the upgrade's socket has left HTTP's hands, so it gets a status line and closes.
      req.raw.socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      req.raw.socket.destroySoon();
      return reply.hijack();
    }
    throw new HostNotAllowedError(
      `Host '${header.slice(0, 100)}' is not served here; set ALLOWED_HOSTS to the names clients use`,
    );
  });
}
