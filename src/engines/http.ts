import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { Dispatcher } from 'undici';
import {
  AppError,
  BadRequestError,
  TargetTooLargeError,
  TargetUnreachableError,
  TooManyRedirectsError,
} from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { assertTargetAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import { mobileUserAgent } from './user-agent.js';
import type { Engine, FetchRequest, FetchedPage } from './types.js';

export interface HttpEngineOptions extends GuardOptions {
  maxResponseBytes: number;
  maxDecompressedBytes: number;
  maxRedirects: number;
  userAgent: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Plain HTTP(S) fetch over keep-alive pools; every hop is checked by the SSRF guard. */
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
    const redirects: string[] = [];
    let url = req.url;
    for (;;) {
      assertTargetAllowed(url, this.options);
      deadline.check('fetch');
      const response = await this.send(url, req.headers, dispatcher, deadline, req.mobile ?? false);
      const location = response.headers['location'];
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
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
    await Promise.all([this.verified.close(), this.unverified.close()]);
  }

  private nextLocation(location: string, from: URL): URL {
    try {
      return new URL(location, from);
    } catch {
      throw new TargetUnreachableError(`Invalid redirect location '${location}' from ${from.href}`);
    }
  }

  private async send(
    url: URL,
    callerHeaders: Record<string, string>,
    dispatcher: Dispatcher,
    deadline: Deadline,
    mobile: boolean,
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      'user-agent': mobile ? mobileUserAgent(this.options.userAgent) : this.options.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7',
      'accept-language': 'en-US,en;q=0.9',
      'accept-encoding': 'gzip, deflate, br',
    };
    for (const [name, value] of Object.entries(callerHeaders)) headers[name.toLowerCase()] = value;
    try {
      return await request(url, {
        method: 'GET',
        headers,
        dispatcher,
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

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.BrotliDecompress | zlib.Inflate | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return zlib.createInflate();
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
    if (decoder && err instanceof Error && 'code' in err && String(err.code).startsWith('Z_')) {
      // A body that is not valid gzip/brotli despite its header: keep what decoded cleanly.
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
  const reason =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? 'host name could not be resolved'
      : code === 'ECONNREFUSED'
        ? 'connection refused'
        : code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
          ? `TLS verification failed (${code}); set skipTlsVerification to accept it`
          : err instanceof Error
            ? err.message
            : String(err);
  return new TargetUnreachableError(`Could not fetch${where}: ${reason}`, { cause: err });
}
