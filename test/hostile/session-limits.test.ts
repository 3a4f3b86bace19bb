import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { SessionNamespaces } from '../../src/sessions/host/namespace.js';
import { processTree } from '../../src/sessions/host/process-memory.js';
import { rawCdp } from '../fixtures/cdp-client.js';
import { KEYS, noChromium, startSessionService } from '../fixtures/session-service.js';
import type { SessionService } from '../fixtures/session-service.js';
import { until } from '../fixtures/until.js';

/**
 * Caps counted when asked (contexts and pages of a session in a burst, sessions of a key), a dead browser that
 * ends its session at once and gives its slot back, a browser over its memory ended, and Playwright's own CDP
 * sessions served as filtered views of the session.
 */

const MAX_PAGES = 6;
const isolation = await new SessionNamespaces().unavailable();
let svc: SessionService;

/** The browser processes (not renderers or helpers) descending from this process. */
function browserPids(): Set<number> {
  const pids = processTree(process.pid).filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes('--remote-debugging-pipe') && !args.some((a) => a.startsWith('--type='));
    } catch {
      return false;
    }
  });
  return new Set(pids);
}

/** A new session of the first key (the test fails with the answer when there is none). */
async function created() {
  const made = await svc.api('POST', '/v2/browser', {});
  assert.equal(made.status, 200, JSON.stringify(made.json));
  return made;
}

/** The session's record once it is listed as ended. */
async function ended(id: string): Promise<{ id: string; endCause?: string }> {
  const record = await until(async () => {
    const { json } = await svc.api('GET', '/v2/browser?status=destroyed');
    return (json.sessions as { id: string; endCause?: string }[]).find((s) => s.id === id);
  }, Boolean);
  return record!;
}

const deleteAll = async () => {
  const { json } = await svc.api('GET', '/v2/browser?status=active');
  for (const s of (json.sessions as { id: string }[]) ?? []) await svc.api('DELETE', `/v2/browser/${s.id}`);
};

describe('browser session caps and ends', { skip: noChromium }, () => {
  before(async () => {
    svc = await startSessionService({
      MAX_BROWSER_SESSIONS: '4',
      MAX_SESSIONS_PER_TENANT: '2',
      MAX_SESSION_CONTEXTS: '3',
      MAX_SESSION_PAGES: String(MAX_PAGES),
      SESSION_MEMORY_BYTES: String(768 * 1024 * 1024),
    });
  });
  after(() => svc?.close());

  test('a burst of 40 contexts and 40 pages on one session gets its caps, no more', async () => {
    const made = await created();
    const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
    const contexts = await Promise.all(
      Array.from({ length: 40 }, () => cdp.fire('Target.createBrowserContext', {})),
    );
    const madeContexts = contexts.filter((a) => a.result);
    assert.equal(madeContexts.length, 3, 'MAX_SESSION_CONTEXTS contexts');
    assert.match(String(contexts.find((a) => a.error)?.error?.message), /MAX_SESSION_CONTEXTS/);
    const pages = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        cdp.fire('Target.createTarget', {
          url: 'about:blank',
          ...(i % 2 ? { browserContextId: madeContexts[i % 3]!.result!.browserContextId } : {}),
        }),
      ),
    );
    // The session's first page is open already.
    assert.equal(pages.filter((a) => a.result).length, MAX_PAGES - 1, 'MAX_SESSION_PAGES pages');
    assert.match(String(pages.find((a) => a.error)?.error?.message), /MAX_SESSION_PAGES/);
    cdp.close();
    await svc.api('DELETE', `/v2/browser/${made.json.id}`);
  });

  test("a page's popups past MAX_SESSION_PAGES are closed", async () => {
    const made = await created();
    const browser = await chromium.connectOverCDP(made.json.cdpUrl, { headers: svc.headers() });
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(`${svc.site}/opener`);
      await page.evaluate(() => {
        for (let i = 0; i < 30; i++) window.open(`/popup-${i}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
      const { result } = await cdp.send('Target.getTargets');
      const open = (result!.targetInfos as { type: string }[]).filter((t) => t.type === 'page');
      assert.ok(open.length <= MAX_PAGES, `${open.length} pages open`);
      cdp.close();
    } finally {
      await browser.close();
    }
    await svc.api('DELETE', `/v2/browser/${made.json.id}`);
  });

  test('MAX_SESSIONS_PER_TENANT: a burst of five from one key gets two; another key still gets its own', async () => {
    await deleteAll();
    const burst = await Promise.all(Array.from({ length: 5 }, () => svc.api('POST', '/v2/browser', {})));
    assert.deepEqual(burst.map((r) => r.status).sort(), [200, 200, 429, 429, 429]);
    assert.match(String(burst.find((r) => r.status === 429)?.json.error), /MAX_SESSIONS_PER_TENANT/);
    const other = await svc.api('POST', '/v2/browser', {}, KEYS[1]);
    assert.equal(other.status, 200, JSON.stringify(other.json));
    await deleteAll();
    await svc.api('DELETE', `/v2/browser/${other.json.id}`, undefined, KEYS[1]);
  });

  test('a browser that dies ends its session at once: 410 naming the cause, its slot back', async () => {
    await deleteAll();
    const made = await created();
    // Every browser of the service dies (the session's, and one launched ahead for the next session).
    const killed = [...browserPids()];
    assert.ok(killed.length >= 1, 'the session has a browser');
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    assert.equal((await ended(made.json.id)).endCause, 'crashed');
    const execute = await svc.api('POST', `/v2/browser/${made.json.id}/execute`, { code: 'get title' });
    assert.equal(execute.status, 410);
    assert.match(String(execute.json.error), /crashed/);
    // Every slot is back: as many new sessions as the key may hold start at once.
    const again = await Promise.all([svc.api('POST', '/v2/browser', {}), svc.api('POST', '/v2/browser', {})]);
    assert.deepEqual(
      again.map((r) => r.status),
      [200, 200],
    );
    await deleteAll();
  });

  test(
    'a session whose browser outgrows SESSION_MEMORY_BYTES is ended with the cause memory',
    { skip: isolation ? `no namespaces here: ${isolation}` : false },
    async () => {
      const made = await created();
      const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
      const page = await cdp.attachToPage();
      const hog =
        'window.hog = []; for (let i = 0; i < 64; i++) window.hog.push(new Uint8Array(16e6).fill(i + 1)); 1';
      await cdp.send('Runtime.evaluate', { expression: hog }, page);
      assert.equal((await ended(made.json.id)).endCause, 'memory');
      const execute = await svc.api('POST', `/v2/browser/${made.json.id}/execute`, { code: 'get title' });
      assert.match(String(execute.json.error), /SESSION_MEMORY_BYTES|MAX_SESSION_MEMORY/);
      cdp.close();
    },
  );

  test("Playwright's context.newCDPSession(page) and browser.newBrowserCDPSession() work, filtered", async () => {
    const other = await created();
    const otherBrowser = await chromium.connectOverCDP(other.json.cdpUrl, { headers: svc.headers() });
    await otherBrowser.contexts()[0]!.pages()[0]!.goto(`${svc.site}/other-session`);
    const made = await created();
    const browser = await chromium.connectOverCDP(made.json.cdpUrl, { headers: svc.headers() });
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(`${svc.site}/mine`);
      const session = await page.context().newCDPSession(page);
      const { result } = await session.send('Runtime.evaluate', { expression: 'location.pathname' });
      assert.equal(result.value, '/mine');
      const whole = await browser.newBrowserCDPSession();
      const { targetInfos } = await whole.send('Target.getTargets');
      const urls = targetInfos.filter((t) => t.type === 'page').map((t) => t.url);
      assert.deepEqual(urls, [`${svc.site}/mine`], "only this session's page");
      const close = await whole.send('Browser.close' as never).catch((err: Error) => err);
      assert.match(String(close), /refused/);
      await whole.detach();
      await session.detach();
    } finally {
      await browser.close();
      await otherBrowser.close();
    }
    await deleteAll();
  });
});
