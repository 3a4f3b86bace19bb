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
import { startFactsSite } from '../fixtures/sites/facts-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { FACTS_SCHEMA, followUpFromHistory, researchScript } from '../agent/script.js';

/**
 * Two API processes on one Redis (each working jobs too) behind a round-robin balancer, driven through the
 * balancer only: every call and socket of a browser session reaches the process that holds it, whichever
 * process the balancer picks; an agent thread goes on from either; a monitor patched mid-check keeps both.
 */
const KEY = 'fleet-session-key';
const auth = { authorization: `Bearer ${KEY}` };
const skip = !redisAvailable ? REDIS_MISSING : noChromium;

interface SessionShown {
  id: string;
  holder: string;
  endCause?: string | null;
}

describe('a fleet behind a load balancer: browser sessions, agent threads, monitors', { skip }, () => {
  let redis: RedisServer;
  let balancer: RoundRobin;
  let site: string;
  let closeSite: () => void;
  let facts: Awaited<ReturnType<typeof startFactsSite>>;
  let search: Awaited<ReturnType<typeof startSearchStub>>;
  let llm: Awaited<ReturnType<typeof startLlmStub>>;
  const processes: ChildProcess[] = [];
  const dirs: string[] = [];

  before(async () => {
    redis = await startRedis();
    let version = 0;
    const page = createServer((req, res) => {
      // A page a monitor's check takes a while to read, changing at each read.
      if (req.url === '/slow') {
        setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>v${++version}</h1>`),
          1500,
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Fleet page</title><h1>Reached</h1>');
    });
    facts = await startFactsSite();
    search = await startSearchStub();
    search.hits = [
      { title: 'Acme history', url: `${facts.url}/founder`, snippet: 'Acme Rockets was founded in 1999' },
      { title: 'Acme offices', url: `${facts.url}/hq`, snippet: 'The headquarters of Acme Rockets' },
    ];
    llm = await startLlmStub();
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
          // Both API processes work jobs too (agent runs, monitor checks), as a small fleet runs.
          WORKERS: '2',
          OPENAI_BASE_URL: llm.url,
          MODEL_NAME: 'stub-model',
          SEARXNG_URL: `${search.url}/searxng`,
          MIN_MONITOR_INTERVAL_SECONDS: '1',
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
    await Promise.all([facts?.close(), search?.close(), llm?.close()]);
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

  test('an agent run and its thread follow-up, each call through either process', async () => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: balancer.url });
    const ended = (id: string) =>
      until(
        () => fc.getAgentStatus(id),
        (s) => s.status !== 'processing',
      );
    llm.reply = researchScript(facts.url);
    const first = await fc.startAgent({ prompt: 'Who founded Acme Rockets?', schema: FACTS_SCHEMA });
    assert.equal((await ended(first.id)).status, 'completed');
    llm.reply = followUpFromHistory;
    const second = await fc.startAgent({
      prompt: 'In one sentence?',
      threadId: first.threadId,
      mode: 'chat',
    });
    assert.equal(second.threadTurn, 2);
    const answer = await ended(second.id);
    assert.equal(answer.message, 'Jane Doe founded it in 1999.', answer.error);
    const thread = await fc.getAgentThread(first.threadId!);
    assert.deepEqual(
      thread.thread!.runs.map((r) => [r.turn, r.status]),
      [
        [1, 'succeeded'],
        [2, 'succeeded'],
      ],
    );
  });

  test('a monitor patched while its check is in flight keeps both the change and the check', async () => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: balancer.url });
    const monitor = await fc.createMonitor({
      name: 'slow page',
      schedule: { text: 'daily at 9am', timezone: 'Europe/Lisbon' },
      targets: [{ type: 'scrape', urls: [`${site}/slow`] }],
    });
    const run = await fc.runMonitor(monitor.id);
    await until(
      () => fc.getMonitorCheck(monitor.id, run.id),
      (c) => c.status === 'running',
    );
    const patched = await fc.updateMonitor(monitor.id, { name: 'renamed while checking' });
    assert.equal(patched.name, 'renamed while checking');
    const check = await until(
      () => fc.getMonitorCheck(monitor.id, run.id),
      (c) => c.status !== 'queued' && c.status !== 'running',
    );
    assert.equal(check.status, 'completed');
    const after = await fc.getMonitor(monitor.id);
    assert.equal(after.name, 'renamed while checking', 'the PATCH survived the check finishing');
    assert.deepEqual(after.lastCheckSummary, check.summary, 'the check survived the PATCH');
    assert.equal(check.pages.length, 1, 'its page listed once');
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
