import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { loadConfig } from '../../src/config/config.js';
import { ChromiumTls } from '../../src/engines/chromium-tls.js';
import { CookieJarHandle } from '../../src/engines/cookie-jar.js';
import { HttpEngine } from '../../src/engines/http.js';
import { Identity } from '../../src/engines/identity.js';
import { Deadline } from '../../src/lib/deadline.js';
import type { Logger } from '../../src/lib/logger.js';
import type { Resolver } from '../../src/lib/ssrf-guard.js';
import { startFingerprintSite } from '../fixtures/fingerprint/fingerprint-site.js';
import type { Fingerprint, FingerprintSite } from '../fixtures/fingerprint/fingerprint-site.js';
import { isGrease } from '../fixtures/fingerprint/tls-fingerprint.js';
import { selfSignedCertificate } from '../fixtures/tls.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const quiet = (): void => undefined;
const log: Logger = { debug: quiet, info: quiet, warn: quiet, error: quiet };
/** *.private.test names a private address, every other *.test name this machine's loopback. */
const resolver: Resolver = async (hostname) => {
  if (hostname.endsWith('.private.test')) return [{ address: '10.9.9.9', family: 4 }];
  if (hostname === 'localhost' || hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

function engine(guard: { allowPrivateNetworks: boolean; isBlocked?: (a: string) => boolean }, limits = {}) {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const options = { ...guard, resolver };
  return new HttpEngine({
    ...options,
    maxResponseBytes: config.maxResponseBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    maxRedirects: config.maxRedirects,
    identity: new Identity(config.userAgent, existsSync(CHROMIUM) ? CHROMIUM : null),
    chromiumTls: ChromiumTls.load(options, log),
    ...limits,
  });
}

const fetchUrl = (http: HttpEngine, url: string, extra: { cookies?: CookieJarHandle; ms?: number } = {}) =>
  http.fetchPage(
    { url: new URL(url), headers: {}, skipTlsVerification: true, cookies: extra.cookies },
    Deadline.after(extra.ms ?? 15_000),
  );

describe('the http engine over https looks like the shipped Chromium', () => {
  let site: FingerprintSite;
  before(async () => {
    site = await startFingerprintSite();
  });
  after(() => site.close());

  test('same ciphers, groups, ALPN, HTTP/2 preface and header order as a Chromium navigation', async (t) => {
    const http = engine({ allowPrivateNetworks: true });
    t.after(() => http.close());
    const page = await fetchUrl(http, `${site.url}/engine`);
    assert.equal(page.status, 200);
    const ours = site.seen().find((seen) => seen.requests.some((r) => r.path === '/engine'))!;
    assert.equal(ours.alpn, 'h2');
    assert.match(ours.tls.ja4, /^t13d15\d\dh2_8daaf6152771_/);

    if (!existsSync(CHROMIUM)) {
      t.diagnostic(`SKIPPED the comparison: no Chromium at ${CHROMIUM}`);
      return;
    }
    const chrome = await chromiumNavigation(site);
    // GREASE values are random per hello; where they stand is compared, not what they are.
    const g = (list: number[]) => list.map((v) => (isGrease(v) ? 'GREASE' : v));
    assert.deepEqual(g(ours.tls.ciphers), g(chrome.tls.ciphers));
    assert.deepEqual(g(ours.tls.supportedGroups), g(chrome.tls.supportedGroups));
    assert.deepEqual(ours.tls.alpn, chrome.tls.alpn);
    // What wreq-js cannot send yet, and nothing else (src/engines/chromium-tls-profile.ts).
    const TRUST_ANCHORS = 0xca34;
    const ML_DSA = [0x0904, 0x0905, 0x0906];
    const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
    const known = (list: number[]) => list.filter((v) => !isGrease(v));
    assert.deepEqual(
      sorted(known(ours.tls.extensions)),
      sorted(known(chrome.tls.extensions).filter((e) => e !== TRUST_ANCHORS)),
    );
    assert.deepEqual(
      known(ours.tls.signatureAlgorithms),
      known(chrome.tls.signatureAlgorithms).filter((s) => !ML_DSA.includes(s)),
    );
    assert.equal(ours.http2?.akamai, chrome.http2?.akamai);
    assert.equal(ours.http2?.headersPriority, chrome.http2?.headersPriority);
    const names = (seen: Fingerprint, path: string) =>
      seen.requests.find((r) => r.path === path)!.headers.map(([name]) => name);
    assert.deepEqual(names(ours, '/engine'), names(chrome, '/chromium'));
  });
});

/** The shipped Chromium's navigation to `site`, recorded there. */
async function chromiumNavigation(site: FingerprintSite): Promise<Fingerprint> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    await (await context.newPage()).goto(`${site.url}/chromium`);
  } finally {
    await browser.close();
  }
  return site.seen().find((seen) => seen.requests.some((r) => r.path === '/chromium'))!;
}

describe('the http engine over https with Chromium TLS: guard, redirects, cookies, limits', () => {
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 'a');
    const routes: Record<string, (req: Http2ServerRequest, res: Http2ServerResponse) => void> = {
      '/page': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>page</h1>'),
      '/cookies': (_req, res) => {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.writeHead(302, { location: '/echo' }).end();
      },
      '/echo': (req, res) => res.writeHead(200).end(String(req.headers.cookie ?? '')),
      '/to-other': (_req, res) => res.writeHead(302, { location: `https://other.test:${port()}/page` }).end(),
      '/to-private': (_req, res) =>
        res.writeHead(302, { location: `https://intranet.private.test:${port()}/page` }).end(),
      '/gzip': (_req, res) =>
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('<p>decoded</p>')),
      '/big': (_req, res) => res.writeHead(200).end(big),
      '/stall': (_req, res) => res.writeHead(200).write('<p>first bytes, then nothing'),
    };
    const server = createSecureServer(
      { ...selfSignedCertificate('site.test'), allowHTTP1: true },
      (req, res) => (routes[req.url] ?? ((_q, s: Http2ServerResponse) => s.writeHead(404).end()))(req, res),
    );
    const port = () => (server.address() as AddressInfo).port;
    const sessions = new Set<ServerHttp2Session>();
    server.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://site.test:${port()}`;
    close = () => {
      for (const session of sessions) session.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    };
  });
  after(() => close());

  test('a name is connected to only at an address the guard allowed; a blocked one is refused', async (t) => {
    const refused = engine({ allowPrivateNetworks: false });
    t.after(() => refused.close());
    await assert.rejects(fetchUrl(refused, `${base}/page`), { code: 'TARGET_BLOCKED' });
    // Loopback declared public for the test: the pinned connection reaches the site.
    const allowed = engine({ allowPrivateNetworks: false, isBlocked: (a) => a !== '127.0.0.1' });
    t.after(() => allowed.close());
    const page = await fetchUrl(allowed, `${base}/page`);
    assert.equal(page.body.toString(), '<h1>page</h1>');
  });

  test('every redirect hop is checked again', async (t) => {
    const http = engine({ allowPrivateNetworks: false, isBlocked: (a) => a !== '127.0.0.1' });
    t.after(() => http.close());
    const page = await fetchUrl(http, `${base}/to-other`);
    assert.equal(page.url, `${base.replace('site.test', 'other.test')}/page`);
    assert.deepEqual(page.redirects, [`${base}/to-other`]);
    await assert.rejects(fetchUrl(http, `${base}/to-private`), { code: 'TARGET_BLOCKED' });
  });

  test("a redirect's cookies are kept in the jar and sent on the next hop", async (t) => {
    const http = engine({ allowPrivateNetworks: true });
    t.after(() => http.close());
    const cookies = new CookieJarHandle();
    const page = await fetchUrl(http, `${base}/cookies`, { cookies });
    assert.equal(page.body.toString(), 'a=1; b=2');
  });

  test('gzip is decoded by the engine; the wire-size cap and the deadline end a body', async (t) => {
    const http = engine({ allowPrivateNetworks: true });
    t.after(() => http.close());
    assert.equal((await fetchUrl(http, `${base}/gzip`)).body.toString(), '<p>decoded</p>');
    const capped = engine({ allowPrivateNetworks: true }, { maxResponseBytes: 1024 * 1024 });
    t.after(() => capped.close());
    await assert.rejects(fetchUrl(capped, `${base}/big`), { code: 'TARGET_TOO_LARGE' });
    await assert.rejects(fetchUrl(http, `${base}/stall`, { ms: 1500 }), { code: 'TIMEOUT' });
  });

  test('an untrusted certificate is an error naming it unless skipTlsVerification', async (t) => {
    const http = engine({ allowPrivateNetworks: true });
    t.after(() => http.close());
    await assert.rejects(
      http.fetchPage(
        { url: new URL(`${base}/page`), headers: {}, skipTlsVerification: false },
        Deadline.after(15_000),
      ),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'TARGET_UNREACHABLE');
        assert.match(err.message, /site\.test.*skipTlsVerification/);
        return true;
      },
    );
  });
});
