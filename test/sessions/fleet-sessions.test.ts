import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { chromium } from 'playwright-core';
import { freePort } from '../fixtures/free-port.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { startRoundRobin } from '../fixtures/round-robin.js';
import type { RoundRobin } from '../fixtures/round-robin.js';
import { spawnService } from '../fixtures/service-process.js';
import { noChromium } from '../fixtures/session-service.js';
import { until } from '../fixtures/until.js';

/**
 * Two API processes on one Redis behind a round-robin balancer, driven through the balancer only: every call
 * and socket of a browser session reaches the process that holds it, whichever process the balancer picks.
 */
const KEY = 'fleet-session-key';
const auth = { authorization: `Bearer ${KEY}` };
const skip = !redisAvailable ? REDIS_MISSING : noChromium;

interface SessionShown {
  id: string;
  holder: string;
  endCause?: string | null;
}

describe('browser sessions behind a load balancer', { skip }, () => {
  let redis: RedisServer;
  let balancer: RoundRobin;
  let site: string;
  let closeSite: () => void;
  const processes: ChildProcess[] = [];
  const dirs: string[] = [];

  before(async () => {
    redis = await startRedis();
    const page = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Fleet page</title><h1>Reached</h1>'),
    );
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    closeSite = () => page.close();
    const ports = [await freePort(), await freePort()];
    for (const port of ports) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'fleet-session-'));
      dirs.push(dir);
      processes.push(
        await spawnService(dir, port, {
          REDIS_URL: redis.url,
          WORKERS: '0',
          API_KEYS: KEY,
          FLEET_SECRET: 'fleet-test-secret',
          ADVERTISE_URL: `http://127.0.0.1:${port}`,
          MAX_BROWSER_SESSIONS: '2',
        }),
      );
    }
    balancer = await startRoundRobin(ports);
  });

  after(async () => {
    for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
    await balancer?.close();
    closeSite?.();
    await redis?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${balancer.url}${route}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  test("the SDK's calls, Playwright over CDP and the live view reach the holder from either process", async () => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: balancer.url });
    const made = await fc.browser({ ttl: 120 });
    const id = made.id!;
    // Four calls in turn: two of them arrive at the process that does not hold the session.
    for (let i = 0; i < 4; i++) {
      const run = await fc.browserExecute(id, { code: `open ${site}/ && get title` });
      assert.equal(run.success, true, JSON.stringify(run));
      assert.match(String(run.stdout), /Fleet page/, run.stderr);
    }
    assert.ok(new Set(balancer.sent).size === 2, 'the balancer used both processes');

    assert.ok(made.cdpUrl!.startsWith(balancer.url.replace('http', 'ws')), made.cdpUrl);
    for (let i = 0; i < 2; i++) {
      const browser = await chromium.connectOverCDP(made.cdpUrl!, { headers: auth });
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(`${site}/`);
      assert.equal(await page.locator('h1').textContent(), 'Reached');
      await browser.close();
    }

    const live = `${balancer.url.replace('http', 'ws')}/v2/browser/${id}/live`;
    for (let i = 0; i < 2; i++) assert.equal(await firstFrame(new WebSocket(live, [KEY])), 'frame');

    const gone = await fc.deleteBrowser(id);
    assert.equal(gone.success, true);
    for (let i = 0; i < 2; i++)
      assert.equal((await call('POST', `/v2/browser/${id}/execute`, { code: 'get title' })).status, 410);
  });

  test('interact() after scrape() and stopInteraction() through either process reach the same session', async () => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: balancer.url });
    const doc = await fc.scrape(`${site}/`, { formats: ['markdown'], maxAge: 0 });
    const scrapeId = doc.metadata?.scrapeId;
    assert.ok(scrapeId);
    await fc.interact(scrapeId, { code: `open ${site}/second`, language: 'bash' });
    for (let i = 0; i < 3; i++) {
      const again = await fc.interact(scrapeId, { code: 'get url', language: 'bash' });
      assert.equal(again.stdout, `${site}/second\n`, again.stderr); // the page it was left on
    }
    const stopped = await fc.stopInteraction(scrapeId);
    assert.equal(stopped.status, 'destroyed');
  });

  test('a forged fleet signature is refused; another tenant is told the session does not exist', async () => {
    const made = await call('POST', '/v2/browser', { ttl: 60 });
    const id = made.json.id as string;
    for (let i = 0; i < 2; i++) {
      const forged = await fetch(`${balancer.url}/v2/browser/${id}/execute`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          'x-pagewright-fleet': `t=${Date.now()},sig=${'0'.repeat(64)}`,
        },
        body: JSON.stringify({ code: 'get title' }),
      });
      assert.equal(forged.status, 401);
      const stranger = await fetch(`${balancer.url}/v2/browser/${id}/execute`, {
        method: 'POST',
        headers: { authorization: 'Bearer not-a-key', 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'get title' }),
      });
      assert.equal(stranger.status, 401);
    }
    assert.equal((await call('DELETE', `/v2/browser/${id}`)).status, 200);
  });

  test('kill -9 of the holding process ends its session: 410 with the cause from the process left', async () => {
    const made = await call('POST', '/v2/browser', { ttl: 120 });
    const id = made.json.id as string;
    const listed = await call('GET', '/v2/browser?status=active');
    const mine = (listed.json.sessions as SessionShown[]).find((s) => s.id === id)!;
    const holder = processes.find((child) => mine.holder.includes(`:${child.pid}:`))!;
    assert.ok(holder, `the holder ${mine.holder} is one of the two processes`);
    holder.kill('SIGKILL');
    await until(
      async () => holder.exitCode !== null || holder.signalCode !== null,
      (exited) => exited,
    );
    // The process left shows it ended once the holder's heartbeat stopped, without a call for it.
    const ended = await until(
      async () => (await call('GET', '/v2/browser?status=destroyed')).json.sessions as SessionShown[],
      (sessions) => sessions.some((s) => s.id === id),
    );
    assert.equal(ended.find((s) => s.id === id)?.endCause, 'crashed');
    for (let i = 0; i < 2; i++) {
      const answer = await call('POST', `/v2/browser/${id}/execute`, { code: 'get title' });
      assert.equal(answer.status, 410, JSON.stringify(answer.json));
      assert.match(
        String(answer.json.error),
        /crashed: its process .* (stopped answering|no longer answers)/,
      );
    }
  });
});

/** Whether a live view socket delivers a screencast frame (or closes or is refused first). */
function firstFrame(ws: WebSocket): Promise<string> {
  return new Promise<string>((resolve) => {
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (e) => {
      if (e.data instanceof ArrayBuffer && e.data.byteLength > 0) {
        resolve('frame');
        ws.close();
      }
    };
    ws.onclose = (e) => resolve(`closed ${e.code} ${e.reason}`);
    ws.onerror = () => resolve('refused');
  });
}
