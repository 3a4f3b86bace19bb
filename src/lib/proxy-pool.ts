import type { Logger } from './logger.js';

/** Which proxies carry a request: PROXY_URLS (with PROXY_SERVER) or STEALTH_PROXY_URLS. */
export type ProxyTier = 'basic' | 'stealth';

/** One configured proxy. Its credentials stay here: only `label` is ever shown (status, logs, errors). */
export interface ProxyEndpoint {
  /** `host:port`, what status, logs and error messages name the proxy by. */
  readonly label: string;
  readonly protocol: 'http:' | 'https:' | 'socks5:';
  /** Without the brackets of an IPv6 literal. */
  readonly hostname: string;
  readonly port: number;
  readonly username: string | null;
  readonly password: string | null;
}

const DEFAULT_PORTS = { 'http:': 80, 'https:': 443, 'socks5:': 1080 } as const;

/** A proxy URL of the configuration (`http://`, `https://`, `socks5://`, credentials in the URL) as an endpoint. */
export function proxyEndpoint(raw: string): ProxyEndpoint {
  const url = new URL(raw);
  const protocol = url.protocol === 'socks5h:' ? 'socks5:' : url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:' && protocol !== 'socks5:') {
    throw new Error(`proxy scheme ${url.protocol} is not http, https or socks5`);
  }
  const port = url.port === '' ? DEFAULT_PORTS[protocol] : Number(url.port);
  return {
    label: `${url.hostname}:${port}`,
    protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    username: url.username === '' ? null : decodeURIComponent(url.username),
    password: url.password === '' ? null : decodeURIComponent(url.password),
  };
}

/** A proxy as `/api/v1/status` lists it. */
export interface ProxyState {
  proxy: string;
  tier: ProxyTier;
  healthy: boolean;
  /** ISO time the proxy is tried again from (only while it rests). */
  restingUntil?: string;
}

export interface ProxyPoolOptions {
  /** The first rest of a failing proxy, ms; each rest in a row doubles it, up to `maxRestMs`. */
  restMs?: number;
  maxRestMs?: number;
  /** Failures in a row that put a proxy to rest. */
  failuresToRest?: number;
  log?: Logger;
  now?: () => number;
}

interface Health {
  /** Failures since the last success or rest. */
  failures: number;
  /** Rests in a row (the backoff's exponent). */
  rests: number;
  restingUntil: number;
  /** Back from a rest without a success yet: its next failure rests it again at once, for longer. */
  onTrial: boolean;
}

/** Sticky choices kept at most (the oldest go first): a long-gone job's hosts need not stay. */
const MAX_STICKY = 20_000;

/**
 * The proxies of one tier, their health and who uses which. Rotation is round-robin over the (session, host)
 * pairs it has not seen; a pair then keeps its proxy (a session's cookies keep their IP), where a session is a
 * job or a lone scrape. A proxy that fails `failuresToRest` times in a row (connection errors, 407, CONNECT
 * refused: see proxy-tunnel.ts) rests for `restMs`, doubled at each rest in a row up to `maxRestMs`; a pair
 * whose proxy rests moves to the next one. When every proxy rests, the one back first is tried rather than
 * none: a request is never refused for want of a rested proxy, and one failure on trial rests it again.
 */
export class ProxyPool {
  private readonly health: Health[];
  private readonly sticky = new Map<string, number>();
  private next = 0;
  private readonly restMs: number;
  private readonly maxRestMs: number;
  private readonly failuresToRest: number;
  private readonly now: () => number;

  constructor(
    readonly tier: ProxyTier,
    readonly proxies: readonly ProxyEndpoint[],
    private readonly options: ProxyPoolOptions = {},
  ) {
    this.health = proxies.map(() => ({ failures: 0, rests: 0, restingUntil: 0, onTrial: false }));
    this.restMs = options.restMs ?? 30_000;
    this.maxRestMs = options.maxRestMs ?? 600_000;
    this.failuresToRest = options.failuresToRest ?? 3;
    this.now = options.now ?? Date.now;
  }

  /**
   * The proxy for `host` in `session`, skipping `exclude` (the proxies a request has already tried); null when
   * every proxy is excluded. A proxy skipped only because this request tried it stays the pair's choice.
   */
  choose(
    session: string,
    host: string,
    exclude: ReadonlySet<ProxyEndpoint> = new Set(),
  ): ProxyEndpoint | null {
    const key = `${session}\n${host}`;
    const now = this.now();
    const stuck = this.sticky.get(key);
    if (stuck !== undefined && !this.resting(stuck, now) && !exclude.has(this.proxies[stuck]!)) {
      this.stick(key, stuck);
      return this.proxies[stuck]!;
    }
    const index = this.rotate(now, exclude);
    if (index === null) return null;
    if (stuck === undefined || this.resting(stuck, now)) this.stick(key, index);
    return this.proxies[index]!;
  }

  /** The proxy carried a request (or opened a tunnel): it is healthy again. */
  succeeded(proxy: ProxyEndpoint): void {
    const health = this.health[this.proxies.indexOf(proxy)];
    if (!health) return;
    Object.assign(health, { failures: 0, rests: 0, restingUntil: 0, onTrial: false });
  }

  /** The proxy itself failed (not the target behind it); `reason` names it by its label only. */
  failed(proxy: ProxyEndpoint, reason: string): void {
    const health = this.health[this.proxies.indexOf(proxy)];
    const now = this.now();
    // Already resting: the failures of requests that were sent before the rest began.
    if (!health || health.restingUntil > now) return;
    health.failures++;
    if (!health.onTrial && health.failures < this.failuresToRest) return;
    const restMs = Math.min(this.maxRestMs, this.restMs * 2 ** health.rests);
    Object.assign(health, {
      failures: 0,
      rests: health.rests + 1,
      restingUntil: now + restMs,
      onTrial: true,
    });
    this.options.log?.warn({ proxy: proxy.label, tier: this.tier, restMs, reason }, 'proxy rested');
  }

  status(): ProxyState[] {
    const now = this.now();
    return this.proxies.map((proxy, index) => {
      const until = this.health[index]!.restingUntil;
      return {
        proxy: proxy.label,
        tier: this.tier,
        healthy: until <= now,
        ...(until > now ? { restingUntil: new Date(until).toISOString() } : {}),
      };
    });
  }

  private resting(index: number, now: number): boolean {
    return this.health[index]!.restingUntil > now;
  }

  private stick(key: string, index: number): void {
    this.sticky.delete(key);
    this.sticky.set(key, index);
    if (this.sticky.size > MAX_STICKY) this.sticky.delete(this.sticky.keys().next().value!);
  }

  /** The next proxy in turn that neither rests nor is excluded; else the non-excluded one back first. */
  private rotate(now: number, exclude: ReadonlySet<ProxyEndpoint>): number | null {
    const count = this.proxies.length;
    let soonest: number | null = null;
    for (let step = 0; step < count; step++) {
      const index = (this.next + step) % count;
      if (exclude.has(this.proxies[index]!)) continue;
      if (!this.resting(index, now)) {
        this.next = (index + 1) % count;
        return index;
      }
      if (soonest === null || this.health[index]!.restingUntil < this.health[soonest]!.restingUntil) {
        soonest = index;
      }
    }
    return soonest;
  }
}
