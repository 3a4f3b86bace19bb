import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { chromium } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { rawCdp as rawCdpOf } from '../fixtures/cdp-client.js';
import { KEYS, noChromium, startSessionService } from '../fixtures/session-service.js';
import type { SessionService } from '../fixtures/session-service.js';
import { OPEN_CALLER } from '../../src/tenants/tenant.js';

/**
 * Browser sessions on a real Chromium: Playwright's own connectOverCDP through the filtering CDP proxy, the
 * SDK's session calls, expiry, the session limit, profiles, and the API key on the WebSocket.
 */

const KEY = KEYS[0]!;
const auth = { authorization: `Bearer ${KEY}` };

let svc: SessionService;
let app: FastifyInstance;
let base = '';

function page(res: ServerResponse, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
}

function siteRoutes(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://site.test');
  if (url.pathname === '/form') {
    return page(res, `<title>Form</title><form action="/hello"><input name="who"><button>Go</button></form>`);
  }
  if (url.pathname === '/hello') {
    return page(res, `<title>Hello</title><p id="out">Hello, ${url.searchParams.get('who')}!</p>`);
  }
  if (url.pathname === '/login') return page(res, '<p>in</p>', { 'set-cookie': 'user=alice; Path=/' });
  if (url.pathname === '/whoami')
    return page(res, `<main><p>cookie: ${req.headers.cookie ?? 'none'}</p></main>`);
  return page(res, `<title>${url.pathname}</title><p>${url.pathname}</p>`);
}

async function api(method: string, route: string, body?: unknown) {
  return svc.api(method, route, body);
}

const cdp = (cdpUrl: string) => chromium.connectOverCDP(cdpUrl, { headers: auth });
const rawCdp = (cdpUrl: string) => rawCdpOf(cdpUrl, auth);

describe('browser sessions', { skip: noChromium }, () => {
  before(async () => {
    svc = await startSessionService({ MAX_BROWSER_SESSIONS: '2' }, siteRoutes);
    app = svc.app;
    base = svc.base;
  });
  after(() => svc?.close());

  test("Playwright's connectOverCDP fills and submits a form; escapes are refused with CDP errors", async () => {
    const created = await api('POST', '/v2/browser', {});
    assert.equal(created.status, 200);
    assert.match(created.json.cdpUrl, /^ws:\/\/127\.0\.0\.1:\d+\/v2\/browser\/[0-9a-f-]{36}\/cdp$/);
    const browser = await cdp(created.json.cdpUrl);
    try {
      assert.equal(browser.contexts().length, 1, "the session's context is the default one");
      const context = browser.contexts()[0]!;
      const tab = context.pages()[0] ?? (await context.newPage());
      await tab.goto(`${svc.site}/form`);
      await tab.fill('input[name=who]', 'agent');
      await tab.click('button');
      await tab.waitForURL(/\/hello/);
      assert.equal(await tab.textContent('#out'), 'Hello, agent!');

      await assert.rejects(
        browser.newContext({ proxy: { server: 'http://127.0.0.1:9' } }),
        /proxyServer.*refused|refused.*proxyServer/s,
      );
      // Playwright's own CDP sessions are served, as filtered views of the session.
      const whole = await browser.newBrowserCDPSession();
      const { targetInfos } = await whole.send('Target.getTargets');
      assert.deepEqual(
        targetInfos.filter((t) => t.type === 'page').map((t) => t.url),
        [tab.url()],
        "only the session's own page is listed",
      );
      await whole.detach();
      const pageCdp = await context.newCDPSession(tab);
      const evaluated = await pageCdp.send('Runtime.evaluate', { expression: 'document.title' });
      assert.equal(evaluated.result.value, 'Hello');
      await pageCdp.detach();
      const answer = await tab
        .goto(`http://private.test:${svc.sentinelPort}/secret`)
        .catch((err: Error) => err);
      if (!(answer instanceof Error)) assert.equal(answer?.status(), 403);
      assert.deepEqual(svc.sentinelHits, [], 'the private address was never reached');
      await assert.rejects(tab.goto('file:///etc/passwd'), /refused/);

      // A context without a proxy of its own is served, through the guarded proxy.
      const second = await browser.newContext();
      const other = await second.newPage();
      await other.goto(`${svc.site}/second`);
      assert.equal(await other.title(), '/second');
      await second.close();
    } finally {
      await browser.close();
    }
    const raw = await rawCdp(created.json.cdpUrl);
    for (const method of ['Browser.close', 'Browser.getBrowserCommandLine', 'SystemInfo.getProcessInfo']) {
      const m = await raw.send(method);
      assert.equal((m.error as { code: number }).code, -32000, method);
    }
    assert.deepEqual(
      (await raw.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp' })).result,
      {},
    );
    raw.close();
    const metrics = await (await fetch(`${base}/metrics`, { headers: auth })).text();
    assert.match(metrics, /pagewright_cdp_messages_refused_total [1-9]/);
    assert.equal((await api('DELETE', `/v2/browser/${created.json.id}`)).status, 200);
  });

  test('two sessions see only their own pages', async () => {
    const [one, two] = [
      (await api('POST', '/v2/browser', {})).json,
      (await api('POST', '/v2/browser', {})).json,
    ];
    const a = await cdp(one.cdpUrl);
    const b = await cdp(two.cdpUrl);
    try {
      const pa = a.contexts()[0]!.pages()[0]!;
      await pa.goto(`${svc.site}/only-in-one`);
      const pb = await b.contexts()[0]!.newPage();
      await pb.goto(`${svc.site}/only-in-two`);
      const urls = (browser: typeof a) => browser.contexts().flatMap((c) => c.pages().map((p) => p.url()));
      assert.ok(!urls(b).some((u) => u.includes('only-in-one')), urls(b).join());
      assert.ok(!urls(a).some((u) => u.includes('only-in-two')), urls(a).join());
      const raw = await rawCdp(two.cdpUrl);
      const { targetInfos } = (await raw.send('Target.getTargets')).result as {
        targetInfos: { url: string }[];
      };
      assert.ok(targetInfos.every((t) => !t.url.includes('only-in-one')));
      raw.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    await api('DELETE', `/v2/browser/${one.id}`);
    await api('DELETE', `/v2/browser/${two.id}`);
  });

  test("the SDK's browser(), listBrowsers(), deleteBrowser(); MAX_BROWSER_SESSIONS is a 429", async () => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const made = await fc.browser({ ttl: 120, activityTtl: 60 });
    assert.equal(made.success, true);
    assert.ok(made.id && made.cdpUrl && made.expiresAt);
    const active = await fc.listBrowsers({ status: 'active' });
    assert.ok(active.sessions?.some((s) => s.id === made.id && s.status === 'active'));
    const extra = await api('POST', '/v2/browser', {});
    const over = await api('POST', '/v2/browser', {});
    assert.equal(over.status, 429);
    assert.equal(over.json.code, 'SESSION_LIMIT');
    await api('DELETE', `/v2/browser/${extra.json.id}`);
    const gone = await fc.deleteBrowser(made.id!);
    assert.equal(gone.success, true);
    assert.equal(typeof gone.sessionDurationMs, 'number');
    const destroyed = await fc.listBrowsers({ status: 'destroyed' });
    assert.ok(destroyed.sessions?.some((s) => s.id === made.id));
    assert.equal((await api('DELETE', `/v2/browser/${made.id}`)).status, 410);
    assert.equal((await api('POST', '/v2/browser', { ttl: 5 })).status, 400);
    const bad = await api('POST', '/v2/browser', { ttl: 5 });
    assert.match(String(bad.json.error), /ttl/);
    assert.equal((await api('POST', `/v2/browser/${made.id}/execute`, { code: 'open x' })).status, 410);
  });

  test('a session ends at its ttl and after activityTtl idle; its CDP client is disconnected', async () => {
    const idle = (await api('POST', '/v2/browser', { ttl: 3600, activityTtl: 10 })).json;
    const old = (await api('POST', '/v2/browser', { ttl: 30, activityTtl: 3600 })).json;
    const browser = await cdp(idle.cdpUrl);
    const disconnected = new Promise<void>((resolve) => browser.on('disconnected', () => resolve()));
    const sessions = app.services.sessions;
    await sessions.sweep(Date.now() + 5_000);
    assert.equal(sessions.active, 2, 'nothing is due yet');
    await sessions.sweep(Date.now() + 11_000);
    await disconnected;
    assert.equal((await sessions.get(idle.id, OPEN_CALLER)).endCause, 'idle');
    assert.equal((await sessions.get(old.id, OPEN_CALLER)).status, 'active');
    await sessions.sweep(Date.now() + 31_000);
    assert.equal((await sessions.get(old.id, OPEN_CALLER)).endCause, 'ttl');
    assert.equal(sessions.active, 0, 'every slot came back');
    const metrics = await (await fetch(`${base}/metrics`, { headers: auth })).text();
    assert.match(metrics, /pagewright_browser_sessions_ended_total\{cause="idle"\} 1/);
    assert.match(metrics, /pagewright_browser_sessions_ended_total\{cause="ttl"\} 1/);
    assert.match(metrics, /pagewright_browser_sessions_active 0/);
  });

  test("a session's profile is saved when it ends and used by a later scrape", async () => {
    const made = (await api('POST', '/v2/browser', { profile: { name: 'acct', saveChanges: true } })).json;
    const browser = await cdp(made.cdpUrl);
    await browser.contexts()[0]!.pages()[0]!.goto(`${svc.site}/login`);
    await browser.close();
    assert.equal((await api('DELETE', `/v2/browser/${made.id}`)).status, 200);
    const scraped = await api('POST', '/v2/scrape', {
      url: `${svc.site}/whoami`,
      formats: ['markdown'],
      profile: { name: 'acct' },
    });
    assert.equal(scraped.status, 200, JSON.stringify(scraped.json));
    assert.match(String((scraped.json.data as { markdown: string }).markdown), /user=alice/);
    assert.equal((await api('POST', '/v2/browser', { profile: { name: 'nobody' } })).status, 404);
  });

  test('the CDP WebSocket needs the API key in a header', async () => {
    const made = (await api('POST', '/v2/browser', {})).json;
    await assert.rejects(chromium.connectOverCDP(made.cdpUrl, { timeout: 10_000 }), /401/);
    await assert.rejects(
      chromium.connectOverCDP(made.cdpUrl, { headers: { authorization: 'Bearer wrong' }, timeout: 10_000 }),
      /401/,
    );
    const ok = await cdp(made.cdpUrl);
    await ok.close();
    await api('DELETE', `/v2/browser/${made.id}`);
  });
});
