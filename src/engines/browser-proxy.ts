import { Agent, createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { TargetBlockedError } from '../errors.js';
import { assertTargetAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';

export interface ProxyOptions extends GuardOptions {
  /** Hosts refused before any connection (ads and trackers, when this proxy blocks them). */
  refuseHost?: (host: string) => boolean;
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
 */
export class GuardedProxy {
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly lookup;
  private readonly refusals = new Map<string, string>();
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

  /** Why the last connection to the host of `url` was refused, if it was. */
  refusalFor(url: string): string | undefined {
    try {
      return this.refusals.get(hostOf(new URL(url)));
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    if (this.port !== 0) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private refuse(host: string, reason: string): void {
    this.refusals.delete(host);
    this.refusals.set(host, reason);
    if (this.refusals.size > REMEMBERED_REFUSALS) this.refusals.delete(this.refusals.keys().next().value!);
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
      (answer) => {
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (err instanceof TargetBlockedError) return answerRefused(err.message);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }
}
