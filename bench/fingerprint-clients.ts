/**
 * The HTTP clients bench/fingerprints.ts compares, each behind one small interface. Candidate packages are not
 * dependencies of the project: they are imported from a scratch directory (FINGERPRINT_CANDIDATES, default
 * /root/pwexp), one folder per package (cand-impit, cand-wreq-js, cand-cycletls), and skipped when absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { loadConfig } from '../src/config/config.js';
import { ChromiumTls } from '../src/engines/chromium-tls.js';
import { HttpEngine } from '../src/engines/http.js';
import { Identity } from '../src/engines/identity.js';
import { Deadline } from '../src/lib/deadline.js';
import { systemResolver } from '../src/lib/ssrf-guard.js';
import type { Fingerprint } from '../test/fixtures/fingerprint/fingerprint-site.js';

export interface BenchClient {
  name: string;
  /** GETs `url` and resolves with the body's length once it is read. */
  get(url: string): Promise<number>;
  close(): Promise<void>;
}

const CANDIDATES = process.env.FINGERPRINT_CANDIDATES ?? '/root/pwexp';

/** Imports `pkg` from its scratch folder, or null when it was not installed there. */
async function candidate<T>(folder: string, pkg: string): Promise<T | null> {
  const dir = join(CANDIDATES, folder, 'node_modules', pkg);
  if (!existsSync(dir)) return null;
  const manifest = (await import(pathToFileURL(join(dir, 'package.json')).href, { with: { type: 'json' } }))
    .default as { main?: string; module?: string; exports?: unknown };
  const entry = manifest.main ?? 'index.js';
  return (await import(pathToFileURL(join(dir, entry)).href)) as T;
}

/**
 * The service's http engine, built as src/app/compose.ts builds it (default settings, private nets allowed), with
 * HTTPS_CLIENT=chromium (BoringSSL through wreq-js) or node (undici).
 */
export function httpEngineClient(httpsClient: 'chromium' | 'node'): BenchClient {
  const config = loadConfig({ ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'silent' });
  const guard = { allowPrivateNetworks: true, resolver: systemResolver };
  const quiet = (): void => undefined;
  const engine = new HttpEngine({
    ...guard,
    maxResponseBytes: config.maxResponseBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    maxRedirects: config.maxRedirects,
    identity: new Identity(config.userAgent, config.chromiumPath),
    proxies: null,
    chromiumTls:
      httpsClient === 'chromium'
        ? ChromiumTls.load(guard, { debug: quiet, info: quiet, warn: quiet, error: quiet })
        : null,
  });
  return {
    name: `http engine (HTTPS_CLIENT=${httpsClient})`,
    async get(url) {
      const page = await engine.fetchPage(
        { url: new URL(url), headers: {}, skipTlsVerification: true },
        Deadline.after(30_000),
      );
      return page.body.length;
    },
    close: () => engine.close(),
  };
}

export function undiciFetchClient(): BenchClient {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  return {
    name: 'undici fetch (plain)',
    async get(url) {
      return (await (await undiciFetch(url, { dispatcher })).arrayBuffer()).byteLength;
    },
    close: () => dispatcher.close(),
  };
}

interface ImpitModule {
  Impit: new (options: { browser?: string; ignoreTlsErrors?: boolean }) => {
    fetch(url: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> }>;
  };
}

export async function impitClient(): Promise<BenchClient | null> {
  const impit = await candidate<ImpitModule>('cand-impit', 'impit');
  if (!impit) return null;
  const client = new impit.Impit({ browser: 'chrome', ignoreTlsErrors: true });
  return {
    name: 'impit 0.14 chrome',
    get: async (url) => (await (await client.fetch(url)).arrayBuffer()).byteLength,
    close: async () => undefined,
  };
}

interface WreqModule {
  createTransport(options: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
  fetch(url: string, init: Record<string, unknown>): Promise<{ arrayBuffer(): Promise<ArrayBuffer> }>;
}

/** wreq-js (BoringSSL, Rust): a preset profile, optionally with custom emulation layered on it. */
export async function wreqClient(
  name: string,
  browser: string,
  emulation?: Record<string, unknown>,
): Promise<BenchClient | null> {
  const wreq = await candidate<WreqModule>('cand-wreq-js', 'wreq-js');
  if (!wreq) return null;
  const transport = await wreq.createTransport({ browser, os: 'linux', insecure: true, emulation });
  return {
    name,
    get: async (url) => (await (await wreq.fetch(url, { transport })).arrayBuffer()).byteLength,
    close: () => transport.close(),
  };
}

type CycleTls = ((
  url: string,
  options: Record<string, unknown>,
  method?: string,
) => Promise<{ status: number; arrayBuffer(): Promise<ArrayBuffer> }>) & { exit(): Promise<unknown> };

/** CycleTLS (Go, uTLS, a child process): told Chromium's JA3 and Akamai string as recorded. */
export async function cycleTlsClient(reference: Fingerprint): Promise<BenchClient | null> {
  const mod = await candidate<{ default: (options?: object) => Promise<CycleTls> }>(
    'cand-cycletls',
    'cycletls',
  );
  if (!mod) return null;
  const cycle = await mod.default({ port: 9119 + Math.floor(Math.random() * 500) });
  const navigation = reference.requests[0]?.headers ?? [];
  const options = {
    // Its JA3 path refuses extensions it does not know (0xca34); its JA4_r path takes them.
    ja4r: reference.tls.ja4r,
    http2Fingerprint: reference.http2?.akamai,
    headerOrder: navigation.map(([name]) => name).filter((name) => !name.startsWith(':')),
    orderAsProvided: true,
    insecureSkipVerify: true,
    userAgent: userAgentOf(reference),
    headers: Object.fromEntries(navigation.filter(([n]) => !n.startsWith(':') && n !== 'user-agent')),
    responseType: 'arraybuffer',
  };
  return {
    name: 'cycletls 2.0 (JA4_r + Akamai of the reference)',
    async get(url) {
      // CycleTLS answers a transport failure as a response (status 0 or 5xx with the Go error as its body).
      const response = await cycle(url, options, 'get');
      const body = await response.arrayBuffer();
      if (response.status !== 200)
        throw new Error(`${response.status}: ${Buffer.from(body).toString().slice(0, 200)}`);
      return body.byteLength;
    },
    close: async () => void (await cycle.exit().catch(() => undefined)),
  };
}

function userAgentOf(fp: Fingerprint): string {
  return fp.requests[0]?.headers.find(([n]) => n === 'user-agent')?.[1] ?? '';
}

/** Chromium's own network stack: a navigation per GET (the reference), or a fetch() from a page. */
export async function chromiumClients(
  executablePath: string,
  origin: string,
): Promise<{ browser: Browser; navigate: BenchClient; pageFetch: BenchClient; cdpLoad: BenchClient }> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const pages: Page[] = [];
  const navigate: BenchClient = {
    name: 'chromium navigation (page.goto)',
    async get(url) {
      const page = pages.pop() ?? (await context.newPage());
      try {
        const response = await page.goto(url, { waitUntil: 'commit' });
        return (await response?.body())?.length ?? 0;
      } finally {
        pages.push(page);
      }
    },
    close: async () => undefined,
  };
  // One page on the target's origin serves every fetch: same-origin, so CORS does not hide the body.
  const host = await context.newPage();
  await host.goto(`${origin}/host`);
  let hostOrigin = new URL(origin).origin;
  const pageFetch: BenchClient = {
    name: 'chromium page fetch()',
    async get(url) {
      // Same-origin as the page, so CORS does not hide the body: follow the target's origin.
      if (new URL(url).origin !== hostOrigin) {
        hostOrigin = new URL(url).origin;
        await host.goto(`${hostOrigin}/host`);
      }
      return host.evaluate(async (target) => (await (await fetch(target)).arrayBuffer()).byteLength, url);
    },
    close: async () => undefined,
  };
  const cdp: CDPSession = await context.newCDPSession(host);
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const cdpLoad: BenchClient = {
    name: 'chromium CDP Network.loadNetworkResource',
    async get(url) {
      const { resource } = await cdp.send('Network.loadNetworkResource', {
        frameId: frameTree.frame.id,
        url,
        options: { disableCache: true, includeCredentials: true },
      });
      if (!resource.success || !resource.stream) throw new Error(`load failed: ${resource.netErrorName}`);
      let length = 0;
      for (;;) {
        const chunk = await cdp.send('IO.read', { handle: resource.stream, size: 1 << 20 });
        length += chunk.base64Encoded
          ? Buffer.byteLength(chunk.data, 'base64')
          : Buffer.byteLength(chunk.data);
        if (chunk.eof) break;
      }
      await cdp.send('IO.close', { handle: resource.stream });
      return length;
    },
    close: async () => undefined,
  };
  return { browser, navigate, pageFetch, cdpLoad };
}
