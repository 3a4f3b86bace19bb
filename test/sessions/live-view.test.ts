import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/config.js';

/**
 * The live view on real Chromium: a session shows a loopback page; the web app's live view page, in a second
 * Chromium driven by Playwright, draws its frames; the interactive page's clicks and keys reach the session's
 * page; the live WebSocket refuses a connection without the key; the jobs view lists the session and ends it.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const built = existsSync(join(import.meta.dirname, '..', '..', 'dist', 'web', 'index.html'));
const skip = !existsSync(chromiumPath)
  ? `chromium is not installed at ${chromiumPath}`
  : !built
    ? 'the web app is not built (npm run build:web)'
    : false;
const KEY = 'live-view-test-key';
const auth = { authorization: `Bearer ${KEY}` };
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const DOCS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
/** Generous: no timing is asserted, a loaded machine only waits longer. */
const LONG = 90_000;

/** The top half of the page is a text field, the bottom half a button counting its clicks. */
const COUNTER_PAGE = `<!doctype html><title>Counter</title>
<style>body{margin:0} #t{position:fixed;left:0;top:0;width:100vw;height:50vh;font-size:40px;background:#ffd}
#b{position:fixed;left:0;top:50vh;width:100vw;height:50vh;font-size:60px;background:#2a6}</style>
<input id="t" aria-label="text"><button id="b" onclick="this.textContent = Number(this.textContent) + 1">0</button>`;

let viewer: Browser;
let app: FastifyInstance;
let dataDir = '';
const svc = { url: '' };
let site = '';
const servers: ReturnType<typeof createServer>[] = [];

async function api(method: string, route: string, body?: unknown) {
  const res = await fetch(svc.url + route, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as Record<string, unknown>;
}

interface Made {
  id: string;
  cdpUrl: string;
  liveViewUrl: string;
  interactiveLiveViewUrl: string;
}

/** A session showing the counter page, and the session's page as the agent's own Playwright sees it. */
async function sessionOnCounter() {
  const made = (await api('POST', '/v2/browser', { ttl: 600 })) as unknown as Made;
  const agent = await chromium.connectOverCDP(made.cdpUrl, { headers: auth });
  const context = agent.contexts()[0]!;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${site}/counter`);
  return { made, agent, page };
}

/** The web app in the viewer's Chromium with the key typed in, then at `url`. */
async function openApp(url: string): Promise<Page> {
  const context = await viewer.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(LONG);
  await page.goto(`${svc.url}/#/jobs`);
  await page.getByRole('button', { name: 'API key settings' }).click();
  await page.getByRole('textbox', { name: 'API key' }).fill(KEY);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('textbox', { name: 'API key' }).waitFor({ state: 'hidden' });
  await page.goto(url);
  return page;
}

/** Waits for the canvas to have drawn a frame, and answers how many distinct colours a sample of it has. */
async function drawnColours(page: Page): Promise<number> {
  await page
    .waitForFunction(() => Number(document.querySelector('canvas')?.dataset.frames) > 0)
    .catch(async (err: Error) => {
      throw new Error(`no frame; the page says: ${await page.locator('main').textContent()}`, { cause: err });
    });
  return page.evaluate(() => {
    const canvas = document.querySelector('canvas')!;
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += 4 * 97)
      colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    return colours.size;
  });
}

describe('live view', { skip }, () => {
  before(async () => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(COUNTER_PAGE),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dataDir = mkdtempSync(join(os.tmpdir(), 'pagewright-live-'));
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', CONTENT_WORKERS: '1', API_KEYS: KEY };
    const config = loadConfig({ ...env, ALLOW_PRIVATE_NETWORKS: 'true', MAX_BROWSER_SESSIONS: '3' });
    app = await buildApp({ config, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    svc.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    viewer = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  });
  after(async () => {
    await viewer?.close();
    await app?.close();
    for (const s of servers) s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('create and list answer the live view pages; the page draws the frames', async () => {
    const { made, agent } = await sessionOnCounter();
    const origin = svc.url;
    assert.equal(made.liveViewUrl, `${origin}/#/sessions/${made.id}`);
    assert.equal(made.interactiveLiveViewUrl, `${origin}/#/sessions/${made.id}/interactive`);
    const listed = (await api('GET', '/v2/browser?status=active')).sessions as Made[];
    const mine = listed.find((s) => s.id === made.id)!;
    assert.equal(mine.liveViewUrl, made.liveViewUrl);
    assert.equal(mine.interactiveLiveViewUrl, made.interactiveLiveViewUrl);

    const page = await openApp(made.liveViewUrl);
    assert.ok((await drawnColours(page)) >= 2, 'the frame shows the page, not a blank');
    await page.getByTestId('live-url').filter({ hasText: '/counter' }).waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'live-view.png') });
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOCS, { recursive: true });
      copyFileSync(join(ARTIFACTS, 'live-view.png'), join(DOCS, 'live-view.png'));
    }
    await page.context().close();
    await agent.close();
    await api('DELETE', `/v2/browser/${made.id}`);
  });

  test("interactive: the viewer's clicks and keys reach the session's page; view only, they do not", async () => {
    const { made, agent, page: tab } = await sessionOnCounter();
    const watch = await openApp(made.liveViewUrl);
    await drawnColours(watch);
    await watch.locator('canvas').click({ position: { x: 640, y: 600 } });

    const page = await openApp(made.interactiveLiveViewUrl);
    await drawnColours(page);
    const canvas = page.locator('canvas');
    const box = (await canvas.boundingBox())!;
    await canvas.click({ position: { x: box.width / 2, y: box.height * 0.75 } });
    await tab.waitForFunction(() => document.getElementById('b')!.textContent !== '0', null, {
      timeout: LONG,
    });
    assert.equal(await tab.textContent('#b'), '1', 'one click: the view-only click was not forwarded');
    await canvas.click({ position: { x: box.width / 2, y: box.height * 0.25 } });
    await page.keyboard.type('ok');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('!');
    await tab.waitForFunction(() => (document.getElementById('t') as HTMLInputElement).value === 'o!', null, {
      timeout: LONG,
    });
    await Promise.all([page.context().close(), watch.context().close()]);
    await agent.close();
    await api('DELETE', `/v2/browser/${made.id}`);
  });

  test('the live WebSocket needs the key (a subprotocol, never the URL)', async () => {
    const made = (await api('POST', '/v2/browser', {})) as unknown as Made;
    const live = `${svc.url.replace('http', 'ws')}/v2/browser/${made.id}/live`;
    const outcome = (ws: WebSocket) =>
      new Promise<string>((resolve) => {
        ws.binaryType = 'arraybuffer';
        ws.onmessage = (e) => {
          if (e.data instanceof ArrayBuffer && e.data.byteLength > 0) resolve('frame');
        };
        ws.onclose = () => resolve('closed');
        ws.onerror = () => resolve('refused');
      });
    assert.equal(await outcome(new WebSocket(live)), 'refused');
    assert.equal(await outcome(new WebSocket(live, ['wrong-key'])), 'refused');
    const ok = new WebSocket(live, [KEY]);
    assert.equal(await outcome(ok), 'frame');
    ok.close();
    await api('DELETE', `/v2/browser/${made.id}`);
  });

  test('the jobs view lists the active session with its TTLs and ends it; its live view says so', async () => {
    const made = (await api('POST', '/v2/browser', { ttl: 900, activityTtl: 120 })) as unknown as Made;
    const live = await openApp(made.liveViewUrl);
    await drawnColours(live);
    const page = await openApp(`${svc.url}/#/jobs`);
    const row = page.locator(`tr[data-session="${made.id}"]`);
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    assert.match(text, /15m 00s/, 'the TTL');
    assert.match(text, /2m 00s/, 'the idle TTL');
    await page.getByRole('button', { name: `End session ${made.id}` }).click();
    await row.waitFor({ state: 'detached' });
    const destroyed = (await api('GET', '/v2/browser?status=destroyed')).sessions as {
      id: string;
      endCause: string;
    }[];
    assert.equal(destroyed.find((s) => s.id === made.id)?.endCause, 'deleted');
    await live.getByRole('status').filter({ hasText: /ended/ }).waitFor();
    await Promise.all([page.context().close(), live.context().close()]);
  });
});
