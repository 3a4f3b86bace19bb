import type { Socket } from 'node:net';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { ProxyFailedError } from '../errors.js';
import { ProxyPool, proxyEndpoint } from './proxy-pool.js';
import type { ProxyEndpoint, ProxyPoolOptions, ProxyState, ProxyTier } from './proxy-pool.js';
import {
  ProxyFailure,
  connectToProxy,
  openTunnel,
  proxyAuthorization,
  proxyFailureIn,
  upgradeToTls,
} from './proxy-tunnel.js';
import { assertResolvesPublic } from './ssrf-guard.js';
import type { GuardOptions } from './ssrf-guard.js';

/** One request sent through a route (the fields of undici's `request` that callers use). */
export interface ProxiedRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  headersTimeout?: number;
  bodyTimeout?: number;
  /** The sticky key of rotation: a job's id, or a lone request's own. */
  session: string;
  skipTlsVerification?: boolean;
}

/** A socket for one plain-http request, and how its request goes on it. */
export interface ForwardSocket {
  socket: Socket;
  proxy: ProxyEndpoint;
  /** The request target: the absolute URI to an http(s) proxy, the path through a SOCKS5 tunnel. */
  path: string;
  /** Headers the proxy needs (`Proxy-Authorization`). */
  headers: Record<string, string>;
}

interface Agents {
  /** Plain-http targets through an http(s) proxy: absolute-URI requests on connections to the proxy. */
  forward: Agent;
  /** Everything else: tunnels (CONNECT or SOCKS5), TLS to the target over them for https. */
  verified: Agent;
  unverified: Agent;
}

const AGENT_OPTIONS = { keepAliveTimeout: 10_000, connections: 64 };

const bare = (hostname: string): string => hostname.replace(/^\[|\]$/g, '');

/**
 * Requests through the proxies of one pool, with failover: a proxy that fails (ProxyFailure) is reported to
 * the pool and the next one is tried, each at most once, before the request fails with PROXY_FAILED.
 *
 * The SSRF guard: a proxy resolves the target's name itself, so the guarded lookup of a direct connection
 * never runs. The name is resolved here first with the guard's resolver and refused when any address is
 * private (assertResolvesPublic), then the proxy is handed the name, not the address we checked: TLS needs
 * the name anyway (SNI, the certificate), a proxy resolves it from where it stands (the CDN edge near its exit,
 * which is what a stealth or regional proxy is for), and many proxies refuse IP literals. What that leaves (the
 * proxy's own answer may differ from ours) reaches the proxy's network, not this one; a proxy on this
 * network needs its own rules against private destinations (docs/operations.md, "Proxies").
 */
export class ProxyRoute {
  private readonly agents = new Map<ProxyEndpoint, Agents>();

  constructor(
    readonly pool: ProxyPool,
    /** Null: the targets are operator configuration (search providers), not checked. */
    private readonly guard: GuardOptions | null,
  ) {}

  /** One request to `url` (the caller follows redirects and checks each hop's URL as usual). */
  async request(url: URL, req: ProxiedRequest): Promise<Dispatcher.ResponseData> {
    const host = bare(url.hostname);
    await this.check(host);
    return this.through(req.session, host, async (proxy) => {
      const response = await this.send(proxy, url, req).catch((err: unknown) => {
        // A forwarded request's peer is the proxy (a target's failure would be its 502 or 504): a connection
        // it drops before answering is its own failure, and the request goes through another one.
        if (forwards(proxy, url) && !req.signal.aborted && droppedConnection(err)) {
          throw new ProxyFailure(proxy, 'dropped the connection before answering', { cause: err });
        }
        throw err;
      });
      if (response.statusCode === 407 && forwards(proxy, url)) {
        response.body.dump().catch(() => undefined);
        throw new ProxyFailure(proxy, 'answered 407: proxy authentication required');
      }
      return response;
    });
  }

  /** A byte stream to `host:port` through the session's proxy (the browser's CONNECT tunnels). */
  async tunnel(host: string, port: number, session: string, signal?: AbortSignal): Promise<Socket> {
    await this.check(host);
    return this.through(session, host, (proxy) => openTunnel(proxy, host, port, signal));
  }

  /** A socket for one plain-http request to `url` (the browser's forwarded requests). */
  async forward(url: URL, session: string, signal?: AbortSignal): Promise<ForwardSocket> {
    const host = bare(url.hostname);
    await this.check(host);
    return this.through(session, host, async (proxy) => {
      if (proxy.protocol === 'socks5:') {
        const socket = await openTunnel(proxy, host, Number(url.port || 80), signal);
        return { socket, proxy, path: url.pathname + url.search, headers: {} };
      }
      const socket = await connectToProxy(proxy, signal);
      const auth = proxyAuthorization(proxy);
      const headers: Record<string, string> = auth ? { 'proxy-authorization': auth } : {};
      return { socket, proxy, path: url.href, headers };
    });
  }

  /** A failure seen after the proxy was handed the request (a 407 to a forwarded request). */
  failed(proxy: ProxyEndpoint, reason: string): void {
    this.pool.failed(proxy, reason);
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()].flatMap((a) => [a.forward, a.verified, a.unverified]);
    this.agents.clear();
    await Promise.all(all.map((agent) => agent.close().catch(() => undefined)));
  }

  private async check(host: string): Promise<void> {
    if (this.guard) await assertResolvesPublic(host, this.guard);
  }

  private async through<T>(
    session: string,
    host: string,
    attempt: (proxy: ProxyEndpoint) => Promise<T>,
  ): Promise<T> {
    const tried = new Set<ProxyEndpoint>();
    const failures: string[] = [];
    for (;;) {
      const proxy = await this.pool.choose(session, host, tried);
      if (!proxy) {
        throw new ProxyFailedError(
          `No ${this.pool.tier} proxy could carry the request to ${host}: ${failures.join('; ')}`,
        );
      }
      try {
        const result = await attempt(proxy);
        this.pool.succeeded(proxy);
        return result;
      } catch (err) {
        const failure = proxyFailureIn(err);
        if (!failure) throw err;
        this.pool.failed(proxy, failure.message);
        tried.add(proxy);
        failures.push(failure.message);
      }
    }
  }

  private send(proxy: ProxyEndpoint, url: URL, req: ProxiedRequest): Promise<Dispatcher.ResponseData> {
    const agents = this.agentsFor(proxy);
    const common = {
      origin: url.origin,
      method: req.method,
      body: req.body,
      signal: req.signal,
      headersTimeout: req.headersTimeout,
      bodyTimeout: req.bodyTimeout,
    };
    if (forwards(proxy, url)) {
      const auth = proxyAuthorization(proxy);
      return agents.forward.request({
        ...common,
        path: url.href,
        headers: { ...req.headers, ...(auth ? { 'proxy-authorization': auth } : {}) },
      });
    }
    const agent = req.skipTlsVerification ? agents.unverified : agents.verified;
    return agent.request({ ...common, path: url.pathname + url.search, headers: req.headers });
  }

  private agentsFor(proxy: ProxyEndpoint): Agents {
    let agents = this.agents.get(proxy);
    if (agents) return agents;
    const tunnel = (rejectUnauthorized: boolean): Agent =>
      new Agent({
        ...AGENT_OPTIONS,
        connect: (opts, callback) => {
          const host = bare(opts.hostname);
          const https = opts.protocol === 'https:';
          openTunnel(proxy, host, Number(opts.port) || (https ? 443 : 80))
            .then((socket): Promise<Socket> | Socket =>
              https ? upgradeToTls(socket, host, rejectUnauthorized) : socket,
            )
            .then(
              (socket) => callback(null, socket),
              (err: Error) => callback(err, null),
            );
        },
      });
    agents = {
      forward: new Agent({
        ...AGENT_OPTIONS,
        connect: (_opts, callback) =>
          void connectToProxy(proxy).then(
            (socket) => callback(null, socket),
            (err: Error) => callback(err, null),
          ),
      }),
      verified: tunnel(true),
      unverified: tunnel(false),
    };
    this.agents.set(proxy, agents);
    return agents;
  }
}

const forwards = (proxy: ProxyEndpoint, url: URL): boolean =>
  url.protocol === 'http:' && proxy.protocol !== 'socks5:';

/** undici's "other side closed" and the system's resets: a connection that ended without an answer. */
function droppedConnection(err: unknown): boolean {
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** The proxy settings as config.ts composes them: URLs with their credentials, and PROXY_ALL. */
export interface ProxySettings {
  /** PROXY_URLS, then PROXY_SERVER (with PROXY_USERNAME and PROXY_PASSWORD). */
  basic: string[];
  /** STEALTH_PROXY_URLS. */
  stealth: string[];
  /** PROXY_ALL: webhooks, LLM calls and search providers go through the basic proxies too. */
  all: boolean;
}

/**
 * The service's proxies, built once: a pool per tier (shared by every route over it, so that health and
 * stickiness are one), the engines' routes, and PROXY_ALL's routes for the service's own calls.
 */
export class Proxies {
  private readonly pools: Record<ProxyTier, ProxyPool | null>;
  private readonly routes: Record<ProxyTier, ProxyRoute | null>;
  private readonly opened: ProxyRoute[] = [];

  constructor(
    private readonly settings: ProxySettings,
    private readonly guard: GuardOptions,
    options: ProxyPoolOptions = {},
  ) {
    const pool = (tier: ProxyTier, urls: string[]): ProxyPool | null =>
      urls.length > 0 ? new ProxyPool(tier, urls.map(proxyEndpoint), options) : null;
    this.pools = { basic: pool('basic', settings.basic), stealth: pool('stealth', settings.stealth) };
    this.routes = {
      basic: this.routeOver(this.pools.basic, guard),
      stealth: this.routeOver(this.pools.stealth, guard),
    };
  }

  /** Whether the tier has proxies (`proxy: "stealth"` needs STEALTH_PROXY_URLS). */
  has(tier: ProxyTier): boolean {
    return this.pools[tier] !== null;
  }

  /** The engines' route of a tier; null: that tier's requests go directly. */
  route(tier: ProxyTier): ProxyRoute | null {
    return this.routes[tier];
  }

  /**
   * PROXY_ALL's route over the basic proxies for the service's own calls (webhooks, LLM, search providers);
   * null without PROXY_ALL or PROXY_URLS: they go directly. `guarded`: their targets pass the SSRF guard.
   */
  serviceRoute(guarded: boolean): ProxyRoute | null {
    return this.settings.all ? this.routeOver(this.pools.basic, guarded ? this.guard : null) : null;
  }

  /** Every proxy of both tiers, by `host:port` (never with its credentials). */
  status(): ProxyState[] {
    return [...(this.pools.basic?.status() ?? []), ...(this.pools.stealth?.status() ?? [])];
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.map((route) => route.close()));
    await Promise.all([this.pools.basic?.close(), this.pools.stealth?.close()]);
  }

  private routeOver(pool: ProxyPool | null, guard: GuardOptions | null): ProxyRoute | null {
    if (!pool) return null;
    const route = new ProxyRoute(pool, guard);
    this.opened.push(route);
    return route;
  }
}
