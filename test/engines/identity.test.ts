import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BrowserEngine, CHROMIUM_ARGS } from '../../src/engines/browser.js';
import type { BrowserRequest } from '../../src/engines/browser.js';
import { HttpEngine } from '../../src/engines/http.js';
import { Identity } from '../../src/engines/identity.js';
import { navigationHeaders } from '../../src/engines/navigation-headers.js';
import { personas } from '../../src/engines/user-agent.js';
import { Deadline } from '../../src/lib/deadline.js';
import { systemResolver } from '../../src/lib/ssrf-guard.js';
import type { Resolver } from '../../src/lib/ssrf-guard.js';
import { header, startIdentitySite, verdictOf } from '../fixtures/sites/identity-site.js';
import type { IdentitySite, RawHeaders } from '../fixtures/sites/identity-site.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip) console.warn(`\n!!! IDENTITY TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh.\n`);

/** A name Chromium does not count as loopback (so not potentially trustworthy), served on loopback. */
const PLAIN_HOST = 'plain.test';
const resolver: Resolver = (host) =>
  host === PLAIN_HOST ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : systemResolver(host);

interface Engines {
  http: HttpEngine;
  browser: BrowserEngine;
  close(): Promise<void>;
}

/** Both engines as compose.ts builds them, for one USER_AGENT value. */
function engines(userAgent: string): Engines {
  const identity = new Identity(userAgent, chromiumPath);
  const guard = { allowPrivateNetworks: true, resolver };
  const limits = { maxResponseBytes: 1 << 20, maxDecompressedBytes: 1 << 20, maxRedirects: 3 };
  const http = new HttpEngine({ ...guard, ...limits, identity });
  const browser = new BrowserEngine({
    ...guard,
    identity,
    executablePath: chromiumPath,
    maxPages: 2,
    maxHtmlChars: 1 << 20,
  });
  return { http, browser, close: async () => void (await Promise.all([http.close(), browser.close()])) };
}

const request = (url: string, more: Partial<BrowserRequest> = {}): BrowserRequest => ({
  url: new URL(url),
  headers: {},
  skipTlsVerification: false,
  ...more,
});

/** Chromium itself, launched with the browser engine's flags but driven directly: the reference. */
async function chromiumReference(urls: string[]): Promise<string> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${PLAIN_HOST} 127.0.0.1`],
  });
  try {
    const page = await browser.newPage();
    for (const url of urls) await page.goto(url);
    return browser.version();
  } finally {
    await browser.close();
  }
}

const names = (headers: RawHeaders | undefined): string[] => (headers ?? []).map(([n]) => n.toLowerCase());
const HINTS = ['user-agent', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform'];

describe('identity: one browser on both engines, no automation tells', { skip }, () => {
  let site: IdentitySite;
  let ours: Engines;
  /** The shipped Chromium's version, as the launched browser reports it. */
  let version = '';
  before(async () => {
    site = await startIdentitySite();
    ours = engines('chromium');
    version = await chromiumReference([
      `${site.url}/reference`,
      `http://${PLAIN_HOST}:${site.port}/reference-plain`,
    ]);
  });
  after(async () => {
    await ours?.close();
    await site?.close();
  });

  test("the http engine sends Chromium's navigation headers, in its order, with its values", async () => {
    const deadline = Deadline.after(20_000);
    await ours.http.fetchPage(request(`${site.url}/http`), deadline);
    await ours.http.fetchPage(request(`http://${PLAIN_HOST}:${site.port}/http-plain`), deadline);
    for (const [path, reference] of [
      ['/http', '/reference'],
      ['/http-plain', '/reference-plain'],
    ] as const) {
      const sent = site.seen(path);
      assert.deepEqual(names(sent), names(site.seen(reference)), `the order of ${path}'s headers`);
      for (const [name, value] of site.seen(reference)!) {
        // Headless Chromium names itself so in its User-Agent; the engines present the browser it is built from.
        const expected = name === 'User-Agent' ? value.replace('HeadlessChrome/', 'Chrome/') : value;
        assert.equal(header(sent, name), expected, `${name} of ${path}`);
      }
    }
    assert.equal(header(site.seen('/http-plain'), 'sec-ch-ua'), undefined, 'no client hints over plain http');
  });

  test('the browser engine presents the same User-Agent and client hints, naming the shipped major', async () => {
    await ours.http.fetchPage(request(`${site.url}/desktop-http`), Deadline.after(20_000));
    await ours.browser.fetchPage(request(`${site.url}/desktop-browser`), Deadline.after(30_000));
    const http = site.seen('/desktop-http');
    const browser = site.seen('/desktop-browser');
    for (const name of HINTS) assert.equal(header(browser, name), header(http, name), name);
    const major = version.split('.')[0]!;
    assert.equal(
      header(browser, 'user-agent'),
      `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    );
    assert.match(header(browser, 'sec-ch-ua')!, new RegExp(`"Chromium";v="${major}"`));
    assert.equal(header(browser, 'sec-ch-ua-platform'), '"Linux"');
  });

  test('a phone: the mobile User-Agent and hints, the same on both engines', async () => {
    await ours.http.fetchPage(request(`${site.url}/mobile-http`, { mobile: true }), Deadline.after(20_000));
    await ours.browser.fetchPage(
      request(`${site.url}/mobile-browser`, { mobile: true }),
      Deadline.after(30_000),
    );
    const http = site.seen('/mobile-http');
    for (const name of HINTS)
      assert.equal(header(site.seen('/mobile-browser'), name), header(http, name), name);
    assert.match(header(http, 'user-agent')!, /\(Linux; Android 10; K\) .* Mobile Safari\/537\.36$/);
    assert.equal(header(http, 'sec-ch-ua-mobile'), '?1');
    assert.equal(header(http, 'sec-ch-ua-platform'), '"Android"');
  });

  test('a default render passes BotD; webdriver is false; userAgentData agrees with the User-Agent', async () => {
    const page = await ours.browser.fetchPage(
      request(`${site.url}/botd`, { waitForSelector: '#verdict[data-done]' }),
      Deadline.after(30_000),
    );
    const verdict = verdictOf(page.body.toString('utf8'));
    assert.deepEqual(verdict.botd, { bot: false }, JSON.stringify(verdict.detections));
    assert.equal(verdict.webdriver, false);
    assert.doesNotMatch(verdict.userAgent, /Headless/);
    assert.equal(verdict.workerUserAgent, verdict.userAgent, "a worker's User-Agent is the page's");
    const major = /Chrome\/(\d+)/.exec(verdict.userAgent)?.[1];
    assert.equal(verdict.brands.find((b) => b.brand === 'Chromium')?.version, major);
    assert.equal(verdict.fullVersionList.find((b) => b.brand === 'Chromium')?.version, version);
    assert.equal(verdict.platform, 'Linux');
    assert.equal(verdict.chrome, true, 'window.chrome is there');
    assert.ok(verdict.plugins > 0, 'plugins are listed');
    // A headless Chromium denying notifications while the permission query says prompt is a known tell.
    assert.deepEqual([verdict.notification, verdict.notificationQuery], ['default', 'prompt']);
    // Playwright enables the Runtime domain; a DevTools client that serialized console arguments for it would
    // read an Error's stack getter (the probe rebrowser-patches describes). This Chromium does not.
    assert.equal(verdict.consoleReadStack, false);
  });
});

describe('identity: USER_AGENT and a request of its own', { skip }, () => {
  const custom = 'Custom-Agent/1.0 (+https://example.test/bot)';

  test('an operator User-Agent goes out on both engines, with no client hints over http', async (t) => {
    const site = await startIdentitySite();
    const ours = engines(custom);
    t.after(async () => {
      await ours.close();
      await site.close();
    });
    await ours.http.fetchPage(request(`${site.url}/custom-http`), Deadline.after(20_000));
    const script = { type: 'executeJavascript' as const, script: 'return navigator.userAgent' };
    const page = await ours.browser.fetchPage(
      request(`${site.url}/custom-browser`, { actions: [script] }),
      Deadline.after(30_000),
    );
    assert.equal(header(site.seen('/custom-http'), 'user-agent'), custom);
    assert.equal(header(site.seen('/custom-http'), 'sec-ch-ua'), undefined);
    assert.equal(header(site.seen('/custom-browser'), 'user-agent'), custom);
    assert.equal(page.actions?.javascriptReturns[0]?.value, custom);
  });

  test('honest: the Chromium persona with the product token and its hints, on both engines', async (t) => {
    const site = await startIdentitySite();
    const ours = engines('honest');
    t.after(async () => {
      await ours.close();
      await site.close();
    });
    await ours.http.fetchPage(request(`${site.url}/honest-http`), Deadline.after(20_000));
    await ours.browser.fetchPage(request(`${site.url}/honest-browser`), Deadline.after(30_000));
    for (const name of HINTS) {
      assert.equal(header(site.seen('/honest-browser'), name), header(site.seen('/honest-http'), name), name);
    }
    assert.match(
      header(site.seen('/honest-http'), 'user-agent')!,
      /^Mozilla\/5\.0 \(X11; Linux x86_64\) .* Chrome\/\d+\.0\.0\.0 Safari\/537\.36 Pagewright\/0\.1$/,
    );
    assert.match(header(site.seen('/honest-http'), 'sec-ch-ua')!, /"Chromium";v="\d+"/);
  });

  test("a request's own headers keep Chromium's places; its own User-Agent drops the hints", () => {
    const { desktop } = personas('chromium', '156.0.8078.108');
    const url = new URL('https://a.test/');
    const order = Object.keys(
      navigationHeaders(desktop, url, { 'accept-language': 'de-DE', 'X-Token': 'abc', cookie: 'a=b' }),
    );
    assert.deepEqual(order.slice(3, 7), ['Upgrade-Insecure-Requests', 'User-Agent', 'X-Token', 'Accept']);
    assert.deepEqual(order.slice(-3), ['Accept-Encoding', 'Accept-Language', 'cookie']);
    const own = navigationHeaders(desktop, url, { 'accept-language': 'de-DE', 'user-agent': 'Own/2' });
    assert.equal(own['Accept-Language'], 'de-DE');
    assert.equal(own['User-Agent'], 'Own/2');
    assert.equal(own['sec-ch-ua'], undefined);
    assert.equal(
      navigationHeaders(desktop, url, { 'User-Agent': desktop.userAgent })['sec-ch-ua'],
      '"Not:A-Brand";v="8", "Chromium";v="156"',
      "the persona's own User-Agent keeps its hints",
    );
  });
});
