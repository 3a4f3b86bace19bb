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

/**
 * What the processes of a fleet share about one tier's proxies (lib/proxy-pool.ts decides; this keeps): each
 * (session, host) pair's proxy, the turn of rotation and the proxies resting. Without one, a process keeps its
 * own.
 */
export interface ProxyShare {
  /** The pair's proxy index chosen by any process, or null. */
  stuck(session: string, host: string): Promise<number | null>;
  /**
   * The pair's proxy: the one chosen by any process, else (or with `replace`) the next of `allowed` in the
   * fleet's turn, kept for the pair. One step: concurrent first requests of a pair get one choice, and a turn
   * is spent only by a pair that takes it.
   */
  choose(session: string, host: string, allowed: number[], replace: boolean): Promise<number>;
  /** Until when each resting proxy rests (ms since the epoch), by index. */
  rests(): Promise<Map<number, number>>;
  rest(index: number, until: number): Promise<void>;
  recovered(index: number): Promise<void>;
  close(): Promise<void>;
}

export interface ProxyPoolOptions {
  /** A fleet's shared choices and health, per tier; none: this process's own. */
  share?: (tier: ProxyTier) => ProxyShare;
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
  private readonly share: ProxyShare | null;
  /** The pairs whose choice is being made with the fleet now, in this process. */
  private readonly deciding = new Map<string, Promise<ProxyEndpoint | null>>();
  /** When the fleet's rests were last read: at most once a second, not per request. */
  private restsReadAt = 0;
  private shareFailing = false;
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
    this.share = options.share?.(tier) ?? null;
  }

  /**
   * The proxy for `host` in `session`, skipping `exclude` (the proxies a request has already tried); null when
   * every proxy is excluded. A proxy skipped only because this request tried it stays the pair's choice. With a
   * fleet's share, the pair's choice, the turn and the rests are the fleet's: the first process to choose for a
   * pair chooses for all.
   */
  async choose(
    session: string,
    host: string,
    exclude: ReadonlySet<ProxyEndpoint> = new Set(),
  ): Promise<ProxyEndpoint | null> {
    const key = `${session}\n${host}`;
    const local = this.sticky.get(key);
    // Without a fleet, decided at once: the concurrent first requests of a pair find the first one's choice.
    if (!this.share || (local !== undefined && this.usable(local, this.now(), exclude))) {
      return this.chooseHere(key, exclude);
    }
    // With one, a pair is decided once at a time in this process; the others then find the decision.
    const pending = this.deciding.get(key);
    if (pending) {
      await pending.catch(() => undefined);
      return this.chooseHere(key, exclude);
    }
    const decision = this.decide(session, host, key, exclude);
    this.deciding.set(key, decision);
    try {
      return await decision;
    } finally {
      this.deciding.delete(key);
    }
  }

  /** choose's decision in this process alone. */
  private chooseHere(key: string, exclude: ReadonlySet<ProxyEndpoint>): ProxyEndpoint | null {
    const now = this.now();
    const stuck = this.sticky.get(key);
    if (stuck !== undefined && this.usable(stuck, now, exclude)) {
      this.stick(key, stuck);
      return this.proxies[stuck]!;
    }
    const index = this.rotate(now, exclude);
    if (index === null) return null;
    if (stuck === undefined || this.resting(stuck, now)) this.stick(key, index);
    return this.proxies[index]!;
  }

  /** choose's decision with the fleet: the pair's choice if any process made one, else the fleet's turn. */
  private async decide(
    session: string,
    host: string,
    key: string,
    exclude: ReadonlySet<ProxyEndpoint>,
  ): Promise<ProxyEndpoint | null> {
    await this.readRests();
    const now = this.now();
    const stuck =
      this.sticky.get(key) ?? (await this.shared((s) => s.stuck(session, host), null)) ?? undefined;
    if (stuck !== undefined && this.usable(stuck, now, exclude)) {
      this.stick(key, stuck);
      return this.proxies[stuck]!;
    }
    const allowed = this.candidates(now, exclude);
    if (allowed.length === 0) return null;
    // A request moving on from the pair's proxy (tried already) does not move the pair.
    if (stuck !== undefined && !this.resting(stuck, now)) return this.proxies[this.rotate(now, exclude)!]!;
    const held = await this.shared((s) => s.choose(session, host, allowed, stuck !== undefined), null);
    // The fleet's choice for the pair, unless this request cannot use it (or Redis did not answer).
    const chosen = held !== null && this.usable(held, now, exclude) ? held : this.rotate(now, exclude)!;
    this.stick(key, chosen);
    return this.proxies[chosen]!;
  }

  /** The proxy carried a request (or opened a tunnel): it is healthy again. */
  succeeded(proxy: ProxyEndpoint): void {
    const index = this.proxies.indexOf(proxy);
    const health = this.health[index];
    if (!health) return;
    if (health.onTrial) void this.shared((s) => s.recovered(index), undefined);
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
    const index = this.proxies.indexOf(proxy);
    void this.shared((s) => s.rest(index, now + restMs), undefined);
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

  async close(): Promise<void> {
    await this.share?.close();
  }

  private resting(index: number, now: number): boolean {
    return this.health[index]!.restingUntil > now;
  }

  private usable(index: number, now: number, exclude: ReadonlySet<ProxyEndpoint>): boolean {
    const proxy = this.proxies[index];
    return proxy !== undefined && !this.resting(index, now) && !exclude.has(proxy);
  }

  /** The fleet's rests joined to this process's (the later end wins), read at most once a second. */
  private async readRests(): Promise<void> {
    const now = this.now();
    if (!this.share || now - this.restsReadAt < 1000) return;
    this.restsReadAt = now;
    const rests = await this.shared((s) => s.rests(), new Map<number, number>());
    for (const [index, until] of rests) {
      const health = this.health[index];
      if (health && until > health.restingUntil)
        Object.assign(health, { restingUntil: until, onTrial: true });
    }
  }

  /** A call on the fleet's share; while Redis fails, this process decides alone (logged once). */
  private async shared<T>(call: (share: ProxyShare) => Promise<T>, alone: T): Promise<T> {
    if (!this.share) return alone;
    try {
      const value = await call(this.share);
      this.shareFailing = false;
      return value;
    } catch (err) {
      if (!this.shareFailing) {
        this.options.log?.warn(
          { err, tier: this.tier },
          "proxy choices are this process's own: the fleet's share failed",
        );
      }
      this.shareFailing = true;
      return alone;
    }
  }

  private stick(key: string, index: number): void {
    this.sticky.delete(key);
    this.sticky.set(key, index);
    if (this.sticky.size > MAX_STICKY) this.sticky.delete(this.sticky.keys().next().value!);
  }

  /** The proxies a new choice may take, in index order: those neither resting nor excluded; else the one back first. */
  private candidates(now: number, exclude: ReadonlySet<ProxyEndpoint>): number[] {
    const open = this.proxies.map((_, i) => i).filter((i) => this.usable(i, now, exclude));
    if (open.length > 0) return open;
    const soonest = this.rotate(now, exclude);
    return soonest === null ? [] : [soonest];
  }

  /** The next proxy in turn that neither rests nor is excluded; else the non-excluded one back first. */
  private rotate(now: number, exclude: ReadonlySet<ProxyEndpoint>): number | null {
    const count = this.proxies.length;
    const first = this.next;
    let soonest: number | null = null;
    for (let step = 0; step < count; step++) {
      const index = (first + step) % count;
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
