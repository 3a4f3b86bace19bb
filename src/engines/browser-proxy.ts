import { Agent, createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { connect, createServer as createListener } from 'node:net';
import type { AddressInfo, Server as Listener, Socket } from 'node:net';
import { ProxyFailedError, TargetBlockedError } from '../errors.js';
import type { AppError } from '../errors.js';
import type { ProxyRoute } from '../lib/proxy-route.js';
import { assertTargetAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';

export interface ProxyOptions extends GuardOptions {
  /** Hosts refused before any connection (ads and trackers, when this proxy blocks them). */
  refuseHost?: (host: string) => boolean;
}

/** Where a context's connections leave: through a route's upstream proxies, rotated for `session` (a job). */
export interface Upstream {
  route: ProxyRoute;
  session: string;
}

/** A port of the proxy of its own for one browser context, whose connections go through an upstream proxy. */
export interface Lane {
  /** The proxy URL for the context. */
  url: string;
  /** Stops listening and ends the lane's connections (once the context is closed). */
  close(): void;
}

/** Headers that belong to one hop (RFC 9110 §7.6.1), and what a proxy must not pass on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A URL's host as the resolver takes it: lower case, an IPv6 literal without its brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/** Refusals remembered per host, so that the engine can say why a load failed (Chromium only sees a failed tunnel). */
const REMEMBERED_REFUSALS = 256;

/**
 * The browser's only way out: a forward proxy on loopback that every request of every page goes through
 * (Chromium resolves no names itself when it has a proxy). It resolves each host once, refuses private and
 * reserved addresses, and connects to exactly the address it checked (the guard of the http engine), so a
 * name that re-resolves to a private address between check and use reaches nothing. HTTPS stays end to end
 * between Chromium and the site (CONNECT tunnels); plain HTTP is forwarded.
 *
 * A context whose requests go through upstream proxies (PROXY_URLS, STEALTH_PROXY_URLS) gets a lane: a port
 * of its own, whose connections the same server handles, chained to the upstream (a CONNECT or SOCKS5 tunnel
 * for HTTPS, an absolute-URI request for plain HTTP) by lib/proxy-route.ts, which checks the target's
 * resolved addresses before handing it over. The port says which context, and so which session, a
 * connection belongs to.
 */
export class GuardedProxy {
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly lookup;
  private readonly refusals = new Map<string, string>();
  /** The last failure of the upstream proxies per host (PROXY_FAILED), until a connection to it succeeds. */
  private readonly proxyFailures = new Map<string, string>();
  /** The upstream of each connection that came through a lane. */
  private readonly upstreams = new WeakMap<Socket, Upstream>();
  private readonly lanes = new Set<Lane>();
  private port = 0;

  constructor(private readonly options: ProxyOptions) {
    this.lookup = guardedLookup(options);
    this.server = createServer((req, res) => this.forward(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) =>
      this.tunnel(req, socket, head),
    );
    // Chromium keeps proxy connections open; they must not hold the process at exit.
    this.server.on('connection', (socket: Socket) => socket.unref());
  }

  /** The proxy's URL for Chromium, listening from the first call on. */
  async url(): Promise<string> {
    if (this.port === 0) {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(0, '127.0.0.1', () => resolve());
      });
      this.server.unref();
      this.port = (this.server.address() as AddressInfo).port;
    }
    return `http://127.0.0.1:${this.port}`;
  }

  /** A port for one context whose connections leave through `upstream`; closed by the caller with the context. */
  async lane(upstream: Upstream): Promise<Lane> {
    const sockets = new Set<Socket>();
    const listener: Listener = createListener((socket) => {
      this.upstreams.set(socket, upstream);
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      this.server.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, '127.0.0.1', () => resolve());
    });
    listener.unref();
    const lane: Lane = {
      url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
      close: () => {
        this.lanes.delete(lane);
        listener.close();
        for (const socket of sockets) socket.destroy();
      },
    };
    this.lanes.add(lane);
    return lane;
  }

  /**
   * Serves the connections that arrive on `listener`, a port made elsewhere (a browser session's, listening in
   * its own network namespace, where it is that browser's only way out). The returned function stops serving
   * and ends them.
   */
  adopt(listener: Listener): () => void {
    const sockets = new Set<Socket>();
    const serve = (socket: Socket): void => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      this.server.emit('connection', socket);
    };
    listener.on('connection', serve);
    listener.unref();
    return () => {
      listener.off('connection', serve);
      listener.close();
      for (const socket of sockets) socket.destroy();
    };
  }

  /** Why the last connection to the host of `url` was refused, if it was. */
  refusalFor(url: string): string | undefined {
    try {
      return this.refusals.get(hostOf(new URL(url)));
    } catch {
      return undefined;
    }
  }

  /**
   * Why the last connection to the host of `url` failed here, if it did: refused (TARGET_BLOCKED), or no
   * upstream proxy could carry it (PROXY_FAILED).
   */
  failureFor(url: string): AppError | null {
    const refused = this.refusalFor(url);
    if (refused) return new TargetBlockedError(`Refused: ${refused}`);
    let unproxied: string | undefined;
    try {
      unproxied = this.proxyFailures.get(hostOf(new URL(url)));
    } catch {
      unproxied = undefined;
    }
    return unproxied ? new ProxyFailedError(unproxied) : null;
  }

  async close(): Promise<void> {
    for (const lane of [...this.lanes]) lane.close();
    this.agent.destroy();
    this.server.closeAllConnections();
    if (this.port !== 0) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private refuse(host: string, reason: string, memory = this.refusals): void {
    memory.delete(host);
    memory.set(host, reason);
    if (memory.size > REMEMBERED_REFUSALS) memory.delete(memory.keys().next().value!);
  }

  /** Remembers why an upstream connection to `host` failed (a refusal, no proxy), or that it succeeded. */
  private upstreamOutcome(host: string, err: unknown): void {
    if (err === null) return void this.proxyFailures.delete(host);
    if (err instanceof TargetBlockedError) this.refuse(host, err.message);
    if (err instanceof ProxyFailedError) this.refuse(host, err.message, this.proxyFailures);
  }

  /** Checks made before connecting (scheme, IP literals, localhost, refused hosts); the reason, or null. */
  private precheck(url: URL, host: string): string | null {
    if (this.options.refuseHost?.(host)) return `${host} is an ad or tracker host (blockAds)`;
    try {
      assertTargetAllowed(url, this.options);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    client.on('error', () => undefined);
    let url: URL;
    try {
      url = new URL(`https://${req.url ?? ''}`);
    } catch {
      return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    }
    const host = hostOf(url);
    const refused = this.precheck(url, host);
    if (refused) {
      this.refuse(host, refused);
      return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    }
    const via = this.upstreams.get(client);
    if (via) return this.tunnelThrough(via, host, Number(url.port || 443), client, head);
    const upstream = connect({ host, port: Number(url.port || 443), lookup: this.lookup });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (err) => {
      if (err instanceof TargetBlockedError) this.refuse(host, err.message);
      if (client.writable && upstream.bytesRead === 0 && !client.destroyed) {
        client.end(
          `HTTP/1.1 ${err instanceof TargetBlockedError ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`,
        );
      } else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  }

  /** A CONNECT chained to the lane's upstream proxy; the route checks the target before the proxy gets it. */
  private tunnelThrough(via: Upstream, host: string, port: number, client: Socket, head: Buffer): void {
    const gone = new AbortController();
    client.once('close', () => gone.abort());
    via.route.tunnel(host, port, via.session, gone.signal).then(
      (tunnel) => {
        this.upstreamOutcome(host, null);
        if (client.destroyed) return void tunnel.destroy();
        tunnel.on('error', () => client.destroy());
        client.once('close', () => tunnel.destroy());
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) tunnel.write(head);
        tunnel.pipe(client);
        client.pipe(tunnel);
      },
      (err: unknown) => {
        this.upstreamOutcome(host, err);
        if (client.destroyed) return;
        client.end(
          `HTTP/1.1 ${err instanceof TargetBlockedError ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`,
        );
      },
    );
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400).end();
    }
    if (url.protocol !== 'http:') return void res.writeHead(400).end();
    const host = hostOf(url);
    const refused = this.precheck(url, host);
    const answerRefused = (reason: string): void => {
      this.refuse(host, reason);
      if (!res.headersSent) res.writeHead(403, { 'x-pagewright-refused': 'ssrf' }).end();
    };
    if (refused) return answerRefused(refused);
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const failed = (err: unknown): void => {
      if (err instanceof TargetBlockedError) return answerRefused(err.message);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    };
    const via = this.upstreams.get(req.socket);
    if (via) return this.forwardThrough(via, url, req, res, headers, failed);
    const upstream = httpRequest(
      {
        host,
        port: Number(url.port || 80),
        path: url.pathname + url.search,
        method: req.method,
        headers,
        agent: this.agent,
        lookup: this.lookup as never,
      },
      (answer) => relay(answer, res),
    );
    upstream.on('error', failed);
    req.pipe(upstream);
  }

  /**
   * A plain-HTTP request sent on through the lane's upstream proxy, on a connection of its own: an
   * absolute-URI request to an http(s) proxy, the path through a SOCKS5 tunnel.
   */
  private forwardThrough(
    via: Upstream,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
    failed: (err: unknown) => void,
  ): void {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    via.route.forward(url, via.session, gone.signal).then(
      (out) => {
        this.upstreamOutcome(hostOf(url), null);
        const upstream = httpRequest(
          {
            createConnection: () => out.socket,
            path: out.path,
            method: req.method,
            headers: { ...headers, ...out.headers },
          },
          (answer) => {
            if (answer.statusCode === 407 && out.path === url.href) {
              answer.resume();
              const reason = 'answered 407: proxy authentication required';
              via.route.failed(out.proxy, reason);
              this.refuse(hostOf(url), `proxy ${out.proxy.label} ${reason}`, this.proxyFailures);
              return void res.writeHead(502, { 'x-pagewright-refused': 'proxy' }).end();
            }
            relay(answer, res);
          },
        );
        upstream.on('error', failed);
        req.pipe(upstream);
      },
      (err: unknown) => {
        this.upstreamOutcome(hostOf(url), err);
        // Marked, as a refusal is: the engine reports PROXY_FAILED rather than a page answering 502.
        if (err instanceof ProxyFailedError && !res.headersSent) {
          return void res.writeHead(502, { 'x-pagewright-refused': 'proxy' }).end();
        }
        failed(err);
      },
    );
  }
}

/** An answer passed on to the browser without its hop-by-hop headers. */
function relay(answer: IncomingMessage, res: ServerResponse): void {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
  }
  res.writeHead(answer.statusCode ?? 502, out);
  answer.pipe(res);
}
