import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { startFingerprintSite } from '../fixtures/fingerprint/fingerprint-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('the fingerprint site tells Chromium from undici by JA4, ALPN and HTTP/2 preface', async (t) => {
  const site = await startFingerprintSite();
  t.after(() => site.close());

  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  t.after(() => agent.close());
  const res = await request(`${site.url}/plain`, { dispatcher: agent, headers: { 'x-probe': 'undici' } });
  assert.equal(res.statusCode, 200);
  await res.body.text();
  const [node] = site.seen();
  assert.ok(node);
  // undici's default Agent offers only http/1.1, with OpenSSL's long cipher list (Chromium offers 15).
  assert.match(node.tls.ja4, /^t13d\d{4}h1_[0-9a-f]{12}_[0-9a-f]{12}$/);
  assert.doesNotMatch(node.tls.ja4, /^t13d15/);
  assert.notEqual(node.alpn, 'h2');
  assert.equal(node.http2, null);
  assert.equal(node.tls.sni, 'localhost');
  const probe = node.requests[0];
  assert.equal(probe?.protocol, 'http/1.1');
  assert.deepEqual(
    probe.headers.find(([name]) => name === 'x-probe'),
    ['x-probe', 'undici'],
  );

  if (!existsSync(CHROMIUM)) {
    t.diagnostic(`SKIPPED the Chromium half: no Chromium at ${CHROMIUM}`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const response = await page.goto(`${site.url}/page`);
  assert.equal(response?.status(), 200);

  const browserSeen = site.seen().filter((seen) => seen.requests.some((r) => r.path === '/page'));
  assert.equal(browserSeen.length, 1);
  const chrome = browserSeen[0]!;
  // Chromium 1xx: TLS 1.3, SNI, 15 ciphers (GREASE dropped), 16–18 extensions, h2 first in ALPN.
  assert.match(chrome.tls.ja4, /^t13d15\d{2}h2_8daaf6152771_[0-9a-f]{12}$/);
  assert.notEqual(chrome.tls.ja4, node.tls.ja4);
  assert.equal(chrome.alpn, 'h2');
  assert.ok(chrome.tls.alpn.includes('http/1.1'));
  assert.ok(chrome.http2, 'an h2 preface was recorded');
  assert.match(chrome.http2.akamai, /^(\d+:\d+;)*\d+:\d+\|\d+\|[\d:,]+\|m,a,s,p$/);
  assert.ok(chrome.http2.windowUpdate > 0);
  const navigation = chrome.requests.find((r) => r.path === '/page')!;
  assert.deepEqual(
    navigation.headers.slice(0, 4).map(([name]) => name),
    [':method', ':authority', ':scheme', ':path'],
  );
  assert.ok(navigation.headers.some(([name, value]) => name === 'sec-fetch-mode' && value === 'navigate'));
});
