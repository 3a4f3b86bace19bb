import net from 'node:net';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { TargetUnreachableError } from '../errors.js';
import type { ProxyEndpoint } from './proxy-pool.js';

/**
 * A failure of the proxy itself, not of the target behind it: it could not be reached, refused our
 * credentials (407, SOCKS authentication) or refused the tunnel. The request may go through another proxy,
 * and the failure counts towards resting this one. The message names the proxy by `host:port` only.
 */
export class ProxyFailure extends Error {
  constructor(
    readonly proxy: ProxyEndpoint,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`proxy ${proxy.label} ${reason}`, options);
    this.name = 'ProxyFailure';
  }
}

/** The ProxyFailure an error is or was caused by (undici hands a connector's error on as it is). */
export function proxyFailureIn(err: unknown): ProxyFailure | null {
  if (err instanceof ProxyFailure) return err;
  return err instanceof Error && err.cause instanceof ProxyFailure ? err.cause : null;
}

/** Longest wait for a proxy to accept a connection and answer its handshake (CONNECT, SOCKS). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Longest CONNECT answer head read. */
const MAX_HEAD_BYTES = 16 * 1024;

/** `Proxy-Authorization` for an http(s) proxy with credentials in its URL; null without. */
export function proxyAuthorization(proxy: ProxyEndpoint): string | null {
  if (proxy.username === null) return null;
  return `Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}`;
}

/** `host:port` as a request line and a Host header write it (an IPv6 literal in brackets). */
export const authorityOf = (host: string, port: number): string =>
  `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;

function reasonOf(err: unknown): string {
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  if (code === 'ECONNREFUSED') return 'refused the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'could not be resolved';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset the connection';
  return `could not be reached (${code || (err instanceof Error ? err.message : String(err))})`;
}

/** Settles with the socket once `ready` fires, or fails (error, close, timeout, abort) with the socket destroyed. */
function established<T extends Socket>(
  socket: T,
  ready: string,
  onFailure: (err: unknown) => Error,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      socket.off(ready, onReady);
      socket.off('error', onError);
      socket.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error): void => {
      done();
      socket.destroy();
      reject(err);
    };
    const onReady = (): void => {
      done();
      resolve(socket);
    };
    const onError = (err: Error): void => fail(onFailure(err));
    const onClose = (): void => fail(onFailure(new Error('closed the connection')));
    const onAbort = (): void => fail(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
    const timer = setTimeout(() => fail(onFailure(new Error('timed out'))), HANDSHAKE_TIMEOUT_MS);
    socket.once(ready, onReady);
    socket.once('error', onError);
    socket.once('close', onClose);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A connection to the proxy itself (TLS for an `https://` proxy). Its address comes from the configuration,
 * not from a caller, so it does not pass through the SSRF guard: operators may run proxies on their network.
 */
export function connectToProxy(proxy: ProxyEndpoint, signal?: AbortSignal): Promise<Socket> {
  const { hostname: host, port } = proxy;
  const socket =
    proxy.protocol === 'https:'
      ? tls.connect({
          host,
          port,
          servername: net.isIP(host) ? undefined : host,
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host, port });
  return established(
    socket,
    proxy.protocol === 'https:' ? 'secureConnect' : 'connect',
    (err) => new ProxyFailure(proxy, reasonOf(err), { cause: err }),
    signal,
  );
}

/** The status of a CONNECT answer, with the bytes after its head put back into the socket. */
function connectAnswer(proxy: ProxyEndpoint, socket: Socket, signal?: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES)
          fail(new ProxyFailure(proxy, 'answered CONNECT with an oversized head'));
        return;
      }
      done();
      socket.pause();
      if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
      if (status) resolve(Number(status));
      else fail(new ProxyFailure(proxy, 'answered CONNECT with something that is not HTTP'));
    };
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onEnd);
      socket.off('close', onEnd);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error): void => {
      done();
      socket.destroy();
      reject(err);
    };
    const onEnd = (err?: unknown): void =>
      fail(
        new ProxyFailure(
          proxy,
          err instanceof Error ? reasonOf(err) : 'closed the connection during CONNECT',
        ),
      );
    const onAbort = (): void => fail(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
    const timer = setTimeout(
      () => fail(new ProxyFailure(proxy, 'did not answer CONNECT in time')),
      HANDSHAKE_TIMEOUT_MS,
    );
    socket.on('data', onData);
    socket.once('error', onEnd);
    socket.once('close', onEnd);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** SOCKS5 replies that say the target, not the proxy, failed (RFC 1928 §6: 3, 4, 5, 6). */
const SOCKS_TARGET_FAILURES = /NetworkUnreachable|HostUnreachable|ConnectionRefused|TTLExpired/;

async function socksTunnel(
  proxy: ProxyEndpoint,
  host: string,
  port: number,
  signal?: AbortSignal,
): Promise<Socket> {
  const socket = await connectToProxy(proxy, signal);
  const onAbort = (): void => void socket.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      proxy: {
        host: proxy.hostname,
        port: proxy.port,
        type: 5,
        ...(proxy.username !== null ? { userId: proxy.username, password: proxy.password ?? '' } : {}),
      },
      command: 'connect',
      // The name, not an address: the proxy resolves it (see ProxyRoute on why).
      destination: { host, port },
      existing_socket: socket,
      timeout: HANDSHAKE_TIMEOUT_MS,
    });
    return tunnel as Socket;
  } catch (err) {
    socket.destroy();
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : err;
    const message = err instanceof Error ? err.message : String(err);
    const reply = SOCKS_TARGET_FAILURES.exec(message)?.[0];
    if (reply) {
      throw new TargetUnreachableError(
        `Could not fetch ${authorityOf(host, port)}: the proxy ${proxy.label} could not reach it (${reply})`,
      );
    }
    const reason = /Authentication|authentication type/.test(message)
      ? 'refused the credentials (SOCKS5 authentication)'
      : `refused the tunnel (${message.replace(/^Socks5 /, 'SOCKS5 ')})`;
    throw new ProxyFailure(proxy, reason, { cause: err });
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A byte stream to `host:port` through `proxy`: an HTTP CONNECT tunnel for `http://` and `https://` proxies,
 * a SOCKS5 CONNECT for `socks5://` ones. The proxy is given the name. Fails with a ProxyFailure when the proxy
 * is at fault (unreachable, 407, refused tunnel) and a TargetUnreachableError when it says the target is
 * (CONNECT answered 502, 503 or 504; SOCKS replies 3 to 6).
 */
export async function openTunnel(
  proxy: ProxyEndpoint,
  host: string,
  port: number,
  signal?: AbortSignal,
): Promise<Socket> {
  if (proxy.protocol === 'socks5:') return socksTunnel(proxy, host, port, signal);
  const socket = await connectToProxy(proxy, signal);
  const authority = authorityOf(host, port);
  const auth = proxyAuthorization(proxy);
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n` +
      (auth ? `Proxy-Authorization: ${auth}\r\n` : '') +
      '\r\n',
  );
  const status = await connectAnswer(proxy, socket, signal);
  if (status >= 200 && status < 300) return socket;
  socket.destroy();
  if (status === 407) throw new ProxyFailure(proxy, 'answered 407: proxy authentication required');
  if (status === 502 || status === 503 || status === 504) {
    throw new TargetUnreachableError(
      `Could not fetch ${authority}: the proxy ${proxy.label} could not reach it (HTTP ${status})`,
    );
  }
  throw new ProxyFailure(proxy, `refused the tunnel (CONNECT answered ${status})`);
}

/** TLS to the target over a tunnel; its failures (certificates) are the target's, as on a direct connection. */
export function upgradeToTls(
  socket: Socket,
  host: string,
  rejectUnauthorized: boolean,
): Promise<tls.TLSSocket> {
  const secure = tls.connect({
    socket,
    host,
    servername: net.isIP(host) ? undefined : host,
    rejectUnauthorized,
    ALPNProtocols: ['http/1.1'],
  });
  return established(secure, 'secureConnect', (err) => (err instanceof Error ? err : new Error(String(err))));
}
