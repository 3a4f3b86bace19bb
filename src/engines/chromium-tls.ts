import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type * as WreqModule from 'wreq-js';
import type { Transport } from 'wreq-js';
import type { Logger } from '../lib/logger.js';
import { guardedAddresses } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import { CHROMIUM_TLS_PROFILE } from './chromium-tls-profile.js';

type Wreq = typeof WreqModule;

/** One hop's answer: status, headers as a Node client gives them (set-cookie a list), the body still on the wire. */
export interface Hop {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Readable;
  /** Drops a body that is not read (a redirect's). */
  discard(): void;
}

export interface TlsRequest {
  headers: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  skipTlsVerification?: boolean;
}

/** A host's connections: pinned to the addresses the guard allowed when they were resolved. */
interface HostTransport {
  transport: Transport;
  addresses: string;
  resolvedAt: number;
  inFlight: number;
  retired: boolean;
}

/** How long a host's vetted addresses are used before its name is resolved again. */
const RESOLVE_TTL_MS = 60_000;
/** Hosts whose connections are kept; the least recently used beyond it are closed. */
const MAX_HOSTS = 256;

/**
 * https requests as the shipped Chromium makes them at TLS and HTTP/2 (BoringSSL through wreq-js, with
 * CHROMIUM_TLS_PROFILE), headers sent exactly as given, in their order.
 *
 * The SSRF guard by construction: wreq-js resolves names itself, so it is never asked to. Each host gets a
 * transport of its own whose resolve map pins the name to the addresses guardedAddresses allowed, and only
 * that host's requests go through it; the connection goes to an address checked here or to none. Redirects
 * are not followed (the engine checks and sends every hop).
 */
export class ChromiumTls {
  private readonly hosts = new Map<string, HostTransport>();
  private readonly opening = new Map<string, Promise<HostTransport>>();

  private constructor(
    private readonly wreq: Wreq,
    private readonly guard: GuardOptions,
  ) {}

  /** The client, or null when wreq-js's native binding does not load on this platform (logged). */
  static load(guard: GuardOptions, log: Logger): ChromiumTls | null {
    try {
      // Required, not imported, so that a platform without the binding starts with Node's TLS instead of failing.
      return new ChromiumTls(createRequire(import.meta.url)('wreq-js') as Wreq, guard);
    } catch (err) {
      log.warn(
        { err },
        "https is fetched with Node's TLS: wreq-js's native binding did not load on this platform",
      );
      return null;
    }
  }

  async request(url: URL, req: TlsRequest): Promise<Hop> {
    const host = await this.hostTransport(url, req.skipTlsVerification === true);
    try {
      const response = await this.wreq.fetch(url, {
        transport: host.transport,
        headers: Object.entries(req.headers),
        disableDefaultHeaders: true,
        redirect: 'manual',
        // The body as sent, so that the engine's caps count wire bytes and decoded bytes as for any fetch.
        compress: false,
        signal: req.signal,
        timeout: req.timeoutMs,
      });
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of response.headers.toTuples()) {
        const key = name.toLowerCase();
        const prior = headers[key];
        if (key === 'set-cookie') headers[key] = [...((prior as string[] | undefined) ?? []), value];
        else headers[key] = prior === undefined ? value : `${prior as string}, ${value}`;
      }
      const body = response.readable();
      // wreq-js ends a request at the signal only until its headers are in; the body is ended here.
      const stop = (): void => void body.destroy(req.signal.reason as Error);
      req.signal.addEventListener('abort', stop, { once: true });
      body.once('close', () => {
        req.signal.removeEventListener('abort', stop);
        this.release(host);
      });
      // An HTTP/2 stream is reset alone; the connection stays for the next hop.
      return { statusCode: response.status, headers, body, discard: () => void body.destroy() };
    } catch (err) {
      this.release(host);
      throw withNodeCode(err);
    }
  }

  async close(): Promise<void> {
    const open = [...this.hosts.values()];
    this.hosts.clear();
    await Promise.all(open.map((host) => host.transport.close().catch(() => undefined)));
  }

  /** The host's transport, counted in use; concurrent first requests to a host share one. */
  private async hostTransport(url: URL, insecure: boolean): Promise<HostTransport> {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const key = `${insecure ? '!' : ''}${hostname}`;
    const known = this.hosts.get(key);
    if (known && Date.now() - known.resolvedAt < RESOLVE_TTL_MS) {
      // Most recently used last, so that eviction takes the oldest.
      this.hosts.delete(key);
      this.hosts.set(key, known);
      known.inFlight++;
      return known;
    }
    let opening = this.opening.get(key);
    if (!opening) {
      opening = this.open(key, hostname, insecure, known).finally(() => this.opening.delete(key));
      this.opening.set(key, opening);
    }
    const host = await opening;
    host.inFlight++;
    return host;
  }

  private async open(
    key: string,
    hostname: string,
    insecure: boolean,
    known: HostTransport | undefined,
  ): Promise<HostTransport> {
    // An IP literal is never resolved (the engine checked it before asking); a name is pinned to what passed.
    const addresses = isIP(hostname)
      ? hostname
      : (await guardedAddresses(hostname, this.guard)).map((a) => a.address).join(',');
    if (known?.addresses === addresses) {
      known.resolvedAt = Date.now();
      return known;
    }
    const transport = await this.wreq.createTransport({
      emulation: CHROMIUM_TLS_PROFILE,
      insecure,
      resolve: isIP(hostname) ? {} : { [hostname]: addresses.split(',') },
      connectTimeout: 10_000,
      poolIdleTimeout: 10_000,
    });
    const fresh: HostTransport = {
      transport,
      addresses,
      resolvedAt: Date.now(),
      inFlight: 0,
      retired: false,
    };
    if (known) this.retire(known);
    this.hosts.delete(key);
    this.hosts.set(key, fresh);
    while (this.hosts.size > MAX_HOSTS) {
      const [oldest, entry] = this.hosts.entries().next().value as [string, HostTransport];
      this.hosts.delete(oldest);
      this.retire(entry);
    }
    return fresh;
  }

  /** Closes a host's connections once the requests still reading from them are done. */
  private retire(host: HostTransport): void {
    host.retired = true;
    if (host.inFlight === 0) void host.transport.close().catch(() => undefined);
  }

  private release(host: HostTransport): void {
    host.inFlight--;
    if (host.retired && host.inFlight === 0) void host.transport.close().catch(() => undefined);
  }
}

/**
 * wreq-js tells a failure by its message only; the Node error code it stands for is added, so that the engine
 * maps a refused connection or a certificate failure the same whichever client met it.
 */
function withNodeCode(err: unknown): unknown {
  if (!(err instanceof Error) || err.name === 'AbortError' || 'code' in err) return err;
  const message = err.message;
  const code = /CERTIFICATE_VERIFY_FAILED|certificate/i.test(message)
    ? 'CERT_VERIFY_FAILED'
    : /connection refused/i.test(message)
      ? 'ECONNREFUSED'
      : /connection reset/i.test(message)
        ? 'ECONNRESET'
        : /timed out|timeout/i.test(message)
          ? 'ETIMEDOUT'
          : 'EPROTO';
  // wreq-js nests its causes in one message ("error sending request …: client error (Connect): …"): the last says it.
  const reason =
    message
      .split(/: (?=[^:]+$)/)
      .at(-1)
      ?.trim() || message;
  return Object.assign(new Error(reason, { cause: err }), { code });
}
