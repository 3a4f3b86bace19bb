import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { docOf, startService } from '../helpers.js';

/**
 * The browser's network: every request through the service's guarded proxy (names resolved by the service,
 * never by Chromium), cookies for the target only, ad hosts refused, TLS verification as asked.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

interface Seen {
  host: string;
  path: string;
  cookie: string | undefined;
}

/** A server on `address`:`port` (0: any) that records what it is asked and answers with `handler`. */
async function serve(
  t: TestContext,
  address: string,
  port: number,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ host: String(req.headers.host), path: req.url ?? '', cookie: req.headers.cookie });
    // One request per connection: every request makes the proxy resolve the name again.
    res.setHeader('connection', 'close');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, address, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

const html = (res: ServerResponse, body: string): void =>
  void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

describe('browser network', { skip }, () => {
  test('names are resolved by the service, not Chromium; a name that re-resolves to a private address reaches nothing', async (t) => {
    // 127.0.0.1 stands for the public internet here, 127.0.0.2 for the private network.
    const publicSite = await serve(t, '127.0.0.1', 0, (req, res) => {
      if (req.url === '/page') {
        return html(
          res,
          `<title>Rebinding</title><main><h1>Public page</h1><p>Text of the public page.</p>
          <img src="http://rebind.test:${publicSite.port}/pixel.png" alt="">
          <script>setTimeout(() => fetch('http://rebind.test:${publicSite.port}/data').catch(() => {}), 50)</script></main>`,
        );
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    const internal = await serve(t, '127.0.0.2', publicSite.port, (_req, res) => html(res, 'secret'));
    let rebindLookups = 0;
    const svc = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      isBlockedAddress: (a) => a !== '127.0.0.1' && isBlockedAddress(a),
      resolver: async (host) => {
        if (host === 'site.test') return [{ address: '127.0.0.1', family: 4 }];
        if (host === 'rebind.test') {
          rebindLookups++;
          return [{ address: rebindLookups === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
        }
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const res = await svc.post('/api/v1/scrape', {
      url: `http://site.test:${publicSite.port}/page`,
      engine: 'browser',
      waitFor: 500,
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.match(docOf(res.json).markdown ?? '', /Text of the public page/);
    // Chromium could not have resolved site.test or rebind.test: the system resolver knows neither.
    assert.ok(
      publicSite.seen.some((s) => s.path === '/pixel.png'),
      'the first lookup (public) was used',
    );
    assert.ok(rebindLookups >= 2, `rebind.test was looked up ${rebindLookups} time(s)`);
    assert.deepEqual(internal.seen, [], 'the private address saw nothing');
  });

  test('a Cookie header goes to the target only, never to the third parties the page calls', async (t) => {
    const third = await serve(t, '127.0.0.1', 0, (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(),
    );
    const target = await serve(t, '127.0.0.1', 0, (_req, res) =>
      html(
        res,
        `<main><h1>Signed in</h1><p>Account page.</p><img src="http://third.test:${third.port}/pixel.png" alt=""></main>`,
      ),
    );
    const svc = await startService(t, {
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const res = await svc.post('/api/v1/scrape', {
      url: `http://target.test:${target.port}/account`,
      engine: 'browser',
      headers: { Cookie: 'session=abc123; theme=dark' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(target.seen[0]?.cookie, 'session=abc123; theme=dark');
    assert.ok(third.seen.length > 0, 'the third party was called');
    assert.ok(
      third.seen.every((s) => s.cookie === undefined),
      JSON.stringify(third.seen),
    );
  });

  test('blockAds (on by default) refuses ad and tracker hosts; blockAds: false lets them through', async (t) => {
    const ads = await serve(t, '127.0.0.1', 0, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/javascript' }).end('document.body.append("AD TEXT")'),
    );
    const page = await serve(t, '127.0.0.1', 0, (_req, res) =>
      html(
        res,
        `<main><h1>Article</h1><p>The article.</p><script src="http://securepubads.doubleclick.net:${ads.port}/tag.js"></script></main>`,
      ),
    );
    const svc = await startService(t, { resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    const url = `http://news.test:${page.port}/story`;
    const blocked = await svc.post('/api/v1/scrape', { url, engine: 'browser', formats: ['html'] });
    assert.equal(blocked.status, 200, JSON.stringify(blocked.json));
    assert.doesNotMatch(docOf(blocked.json).html ?? '', /AD TEXT/);
    assert.equal(ads.seen.length, 0, 'the ad host saw nothing');
    const allowed = await svc.post('/api/v1/scrape', {
      url,
      engine: 'browser',
      formats: ['html'],
      blockAds: false,
    });
    assert.match(docOf(allowed.json).html ?? '', /AD TEXT/);
    assert.equal(ads.seen.length, 1);
  });

  test('skipTlsVerification reaches the browser: a self-signed certificate fails by default and passes when set', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    const server = createTlsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => html(res, '<main><h1>Over TLS</h1><p>Served with a self-signed certificate.</p></main>'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const svc = await startService(t);
    const refused = await svc.post('/api/v1/scrape', { url, engine: 'browser' });
    assert.equal(refused.status, 502, JSON.stringify(refused.json));
    assert.match(String(refused.json.error), /CERT|certificate/i);
    const accepted = await svc.post('/api/v1/scrape', { url, engine: 'browser', skipTlsVerification: true });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
    assert.match(docOf(accepted.json).markdown ?? '', /Served with a self-signed certificate/);
  });
});
