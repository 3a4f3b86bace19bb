import { randomUUID } from 'node:crypto';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { Dispatcher } from 'undici';
import {
  AppError,
  BadRequestError,
  TargetTooLargeError,
  TargetCertificateError,
  TargetUnreachableError,
  TooManyRedirectsError,
} from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { Proxies } from '../lib/proxy-route.js';
import type { WebBotAuth } from '../lib/web-bot-auth.js';
import { assertTargetAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { ChromiumTls, Hop } from './chromium-tls.js';
import type { Identity } from './identity.js';
import { navigationHeaders } from './navigation-headers.js';
import type { Engine, FetchRequest, FetchedPage } from './types.js';

export interface HttpEngineOptions extends GuardOptions {
  maxResponseBytes: number;
  maxDecompressedBytes: number;
  maxRedirects: number;
  /** Who requests say they are (USER_AGENT): their User-Agent and client hints. */
  identity: Identity;
  /** The proxies requests go through (PROXY_URLS, STEALTH_PROXY_URLS); none: directly. */
  proxies?: Proxies | null;
  /** Signs every hop (WEB_BOT_AUTH_KEY); none: requests go unsigned. */
  webBotAuth?: WebBotAuth | null;
  /** Direct https hops open their connections as Chromium does (HTTPS_CLIENT=chromium); none: Node's TLS. */
  chromiumTls?: ChromiumTls | null;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Plain HTTP(S) fetch over keep-alive pools; every hop is checked by the SSRF guard. A direct https hop goes
 * through ChromiumTls when there is one (Chromium's TLS and HTTP/2), plain http and everything else through
 * undici. With proxies for the request's tier, each hop goes through them (lib/proxy-route.ts, which checks
 * the target's resolved addresses before handing it to a proxy).
 */
export class HttpEngine implements Engine {
  readonly name = 'http' as const;
  private readonly verified: Agent;
  private readonly unverified: Agent;

  constructor(private readonly options: HttpEngineOptions) {
    const lookup = guardedLookup(options);
    const agentOptions = { keepAliveTimeout: 10_000, connections: 64, connectTimeout: 10_000 };
    this.verified = new Agent({ ...agentOptions, connect: { lookup } });
    this.unverified = new Agent({ ...agentOptions, connect: { lookup, rejectUnauthorized: false } });
  }

  async fetchPage(req: FetchRequest, deadline: Deadline): Promise<FetchedPage> {
    const dispatcher = req.skipTlsVerification ? this.unverified : this.verified;
    const via = this.options.proxies?.route(req.proxy ?? 'basic') ?? null;
    const session = req.session ?? randomUUID();
    const redirects: string[] = [];
    let url = req.url;
    for (;;) {
      assertTargetAllowed(url, this.options);
      deadline.check('fetch');
      const tls = !via && url.protocol === 'https:' ? this.options.chromiumTls : null;
      // ChromiumTls offers h2 first in ALPN, as Chromium does, and sends what an h2 navigation sends.
      const response = await this.send(url, req, deadline, tls ? 'h2' : 'http/1.1', (options) =>
        tls
          ? tls.request(url, {
              headers: options.headers,
              signal: options.signal,
              timeoutMs: options.headersTimeout,
              skipTlsVerification: req.skipTlsVerification,
            })
          : (via
              ? via.request(url, { ...options, session, skipTlsVerification: req.skipTlsVerification })
              : request(url, { ...options, dispatcher })
            ).then(undiciHop),
      );
      // Every hop's cookies, a redirect's included, stay for the rest of the scrape or job.
      req.cookies?.keep(url, response.headers['set-cookie']);
      const location = response.headers['location'];
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        response.discard();
        if (redirects.length >= this.options.maxRedirects) {
          throw new TooManyRedirectsError(
            `Stopped after ${this.options.maxRedirects} redirects (last: ${url.href})`,
          );
        }
        redirects.push(url.href);
        url = this.nextLocation(location, url);
        continue;
      }
      const headers = flattenHeaders(response.headers);
      const body = await readBody(response.body, headers['content-encoding'], this.options, deadline);
      return { url: url.href, status: response.statusCode, headers, body, redirects };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.verified.close(), this.unverified.close(), this.options.chromiumTls?.close()]);
  }

  private nextLocation(location: string, from: URL): URL {
    try {
      return new URL(location, from);
    } catch {
      throw new TargetUnreachableError(`Invalid redirect location '${location}' from ${from.href}`, {
        permanent: true,
      });
    }
  }

  private async send(
    url: URL,
    req: FetchRequest,
    deadline: Deadline,
    protocol: 'http/1.1' | 'h2',
    through: (options: SendOptions) => Promise<Hop>,
  ): Promise<Hop> {
    const { desktop, mobile } = await this.options.identity.personas();
    const own = { ...req.headers };
    const jarCookies = req.cookies?.cookieHeader(url);
    if (jarCookies) {
      const name = Object.keys(own).find((n) => n.toLowerCase() === 'cookie') ?? 'Cookie';
      own[name] = own[name] ? `${own[name]}; ${jarCookies}` : jarCookies;
    }
    const headers = navigationHeaders(req.mobile ? mobile : desktop, url, own, protocol);
    // Signed per hop: a redirect to another authority gets a signature of its own.
    if (this.options.webBotAuth) Object.assign(headers, this.options.webBotAuth.headersFor(url));
    try {
      return await through({
        method: 'GET',
        headers,
        signal: deadline.signal,
        // The deadline's signal ends the request; these only back it up (and must not beat it).
        headersTimeout: deadline.remainingMs() + 1000,
        bodyTimeout: deadline.remainingMs() + 1000,
      });
    } catch (err) {
      throw translateFetchError(err, url, deadline);
    }
  }
}

/** What one hop's request carries, whichever way it goes. */
interface SendOptions {
  method: 'GET';
  headers: Record<string, string>;
  signal: AbortSignal;
  headersTimeout: number;
  bodyTimeout: number;
}

/** An undici answer in the shape every hop has. */
function undiciHop(response: Dispatcher.ResponseData): Hop {
  return {
    statusCode: response.statusCode,
    headers: response.headers as Record<string, string | string[]>,
    body: response.body,
    // Read off (up to 64 KiB) rather than cut, so that the keep-alive connection serves the next hop.
    discard: () => void response.body.dump({ limit: 64 * 1024 }).catch(() => undefined),
  };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    // Cookies go to the request's jar (a profile's) or nowhere: never on with the page towards a document.
    if (name.toLowerCase() === 'set-cookie') continue;
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function decoderFor(encoding: string | undefined): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return zlib.createInflate();
    case 'zstd':
      return zlib.createZstdDecompress();
    default:
      return null;
  }
}

/** Reads the body with caps on wire bytes and decoded bytes, so neither huge pages nor zip bombs fit. */
async function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  limits: Pick<HttpEngineOptions, 'maxResponseBytes' | 'maxDecompressedBytes'>,
  deadline: Deadline,
): Promise<Buffer> {
  const decoder = decoderFor(contentEncoding);
  let wireBytes = 0;
  body.on('data', (chunk: Buffer) => {
    wireBytes += chunk.length;
    if (wireBytes > limits.maxResponseBytes) {
      body.destroy(new TargetTooLargeError(`Response exceeded the ${limits.maxResponseBytes}-byte limit`));
    }
  });
  const source: Readable = decoder ? body.pipe(decoder) : body;
  if (decoder) body.on('error', (err) => decoder.destroy(err));
  const cap = decoder ? limits.maxDecompressedBytes : limits.maxResponseBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) {
        throw new TargetTooLargeError(`Decoded response exceeded the ${cap}-byte limit`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    body.destroy();
    if (err instanceof AppError) throw err;
    if (decoder && err instanceof Error && 'code' in err && /^(Z_|ZSTD_)/.test(String(err.code))) {
      // A body that is not valid gzip/brotli/zstd despite its header: keep what decoded cleanly.
      return Buffer.concat(chunks);
    }
    throw translateFetchError(err, null, deadline);
  }
  return Buffer.concat(chunks);
}

/** Maps undici/net errors to our hierarchy; undici codes never leak to clients. */
function translateFetchError(err: unknown, url: URL | null, deadline: Deadline): AppError {
  if (err instanceof AppError) return err;
  if (
    deadline.expired ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  ) {
    return deadline.timeoutError('fetch');
  }
  const where = url ? ` ${url.host}` : '';
  if (err instanceof undiciErrors.InvalidArgumentError) {
    return new BadRequestError(`Invalid request to target: ${err.message}`);
  }
  const cause = err instanceof Error && err.cause instanceof AppError ? err.cause : null;
  if (cause) return cause;
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  // No retry finds a host name that does not exist or makes a certificate pass; a DNS server failing for now
  // (EAI_AGAIN), a refused or reset connection, a connect timeout or a handshake cut short may succeed later.
  const certificate = code.includes('CERT') || code === 'ERR_TLS_CERT_ALTNAME_INVALID';
  const permanent = code === 'ENOTFOUND' || certificate;
  const reason =
    code === 'ENOTFOUND'
      ? 'host name not found'
      : code === 'EAI_AGAIN'
        ? 'host name could not be resolved (DNS failure)'
        : code === 'ECONNREFUSED'
          ? 'connection refused'
          : certificate
            ? `TLS verification failed (${code}); set skipTlsVerification to accept it`
            : err instanceof Error
              ? err.message
              : String(err);
  if (certificate) return new TargetCertificateError(`Could not fetch${where}: ${reason}`, { cause: err });
  return new TargetUnreachableError(`Could not fetch${where}: ${reason}`, { cause: err, permanent });
}
