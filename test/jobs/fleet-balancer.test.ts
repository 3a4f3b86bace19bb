import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { chromium } from 'playwright-core';
import { startBalancedFleet } from '../fixtures/balanced-fleet.js';
import type { BalancedFleet } from '../fixtures/balanced-fleet.js';
import { startTestProxy } from '../fixtures/proxy-server.js';
import type { TestProxy } from '../fixtures/proxy-server.js';
import { REDIS_MISSING, redisAvailable } from '../fixtures/redis.js';
import { noChromium } from '../fixtures/session-service.js';
import { until } from '../fixtures/until.js';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startFactsSite } from '../fixtures/sites/facts-site.js';
import { startFlakySite } from '../fixtures/sites/flaky-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { researchThenFollowUp } from '../agent/script.js';

/**
 * Redis, two API processes, two workers and a round-robin balancer in front, driven through the balancer only:
 * every call and socket of a browser session reaches the process that holds it, whichever process the balancer
 * picks; an agent thread goes on from either; a monitor patched mid-check keeps both; a crawl's proxies, host
 * pauses and politeness are the fleet's, not a worker's.
 */
const KEY = 'fleet-session-key';
const auth = { authorization: `Bearer ${KEY}` };
const skip = !redisAvailable ? REDIS_MISSING : noChromium;
/** Spacing of request starts to one host (CRAWL_MIN_DELAY_MS) for the whole fleet. */
const DELAY = 100;

interface SessionShown {
  id: string;
  holder: string;
  endCause?: string | null;
}

describe('a fleet behind a load balancer: sessions, agent threads, monitors, crawls', { skip }, () => {
  let fleet: BalancedFleet;
  let balancer: BalancedFleet['balancer'];
  let site: string;
  let closeSite: () => void;
  let facts: Awaited<ReturnType<typeof startFactsSite>>;
  let search: Awaited<ReturnType<typeof startSearchStub>>;
  let llm: Awaited<ReturnType<typeof startLlmStub>>;
  let proxies: TestProxy[] = [];

  before(async () => {
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
    proxies = [await startTestProxy(), await startTestProxy()];
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    closeSite = () => page.close();
    fleet = await startBalancedFleet(
      {
        OPENAI_BASE_URL: llm.url,
        MODEL_NAME: 'stub-model',
        SEARXNG_URL: `${search.url}/searxng`,
        MIN_MONITOR_INTERVAL_SECONDS: '1',
        API_KEYS: KEY,
        MAX_BROWSER_SESSIONS: '2',
        CRAWL_MIN_DELAY_MS: String(DELAY),
        // Only crawls that ask for them (`proxy: "stealth"`) go through the proxies.
        STEALTH_PROXY_URLS: proxies.map((p) => p.url).join(','),
      },
      KEY,
    );
    balancer = fleet.balancer;
  });

  after(async () => {
    await fleet?.close();
    closeSite?.();
    await Promise.all([facts?.close(), search?.close(), llm?.close(), ...proxies.map((p) => p.kill())]);
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
    const { first, second, answer } = await researchThenFollowUp(fc, llm, facts.url, ended);
    assert.equal(second.threadTurn, 2);
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

  /** A crawl started and polled through the balancer until it ends, with every warning its status showed. */
  const crawl = async (body: Record<string, unknown>) => {
    const started = await call('POST', '/v2/crawl', body);
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const warnings: string[] = [];
    const end = await until(
      async () => (await call('GET', `/v2/crawl/${started.json.id as string}?limit=1`)).json,
      (status) => {
        if (typeof status.warning === 'string') warnings.push(status.warning);
        return status.status !== 'scraping';
      },
    );
    assert.equal(end.status, 'completed', JSON.stringify({ ...end, data: undefined }));
    return { end, warnings };
  };

  test('a proxy-rotated crawl over two hosts: each host keeps one proxy whichever worker fetches it, both proxies used', async () => {
    const hosts = await startCrawlSite({ bare: true, pages: 30 });
    try {
      await crawl({
        url: `http://site.test:${hosts.port}/`,
        limit: 16,
        crawlEntireDomain: true,
        allowSubdomains: true,
        maxConcurrency: 4,
        scrapeOptions: { proxy: 'stealth' },
      });
      const hostsOf = (carried: string[]) =>
        new Set(
          carried
            .map((line) => new URL(line.split(' ')[1]!).host)
            .filter((host) => host.endsWith(`:${hosts.port}`)),
        );
      const [a, b] = proxies.map((p) => hostsOf(p.carried));
      assert.ok(a!.size > 0 && b!.size > 0, `both proxies carried: ${[...a!]} / ${[...b!]}`);
      for (const host of a!) assert.ok(!b!.has(host), `${host} went through one proxy only`);
      assert.deepEqual(
        new Set([...a!, ...b!]),
        new Set([`site.test:${hosts.port}`, `blog.site.test:${hosts.port}`]),
      );
    } finally {
      await hosts.close();
    }
  });

  test('a host that refuses most of its pages is paused for every worker, and the status names it', async (t) => {
    const refusing = await startFlakySite({ mode: '403', pages: 60 });
    try {
      const { end, warnings } = await crawl({ url: `${refusing.url}/`, limit: 61, maxConcurrency: 4 });
      const host = new URL(refusing.url).host;
      assert.match(
        String(end.warning),
        new RegExp(`Paused for this job: ${host.replace('.', '\\.')}`),
        warnings.join(),
      );
      // 20 answers decide the pause; the pages in flight then (maxConcurrency 4 for the fleet) may still land, and
      // one a worker asked for while the deciding answer was on its way to Redis. Nothing after.
      const pages = refusing.requests.filter((r) => r.path === '/' || r.path.startsWith('/p/'));
      t.diagnostic(`pages requested: ${pages.length}`);
      assert.ok(pages.length <= 26, `${pages.length} pages requested of a paused host`);
    } finally {
      await refusing.close();
    }
  });

  test("politeness is the fleet's: two workers keep CRAWL_MIN_DELAY_MS between requests at the site, under a CPU hog", async (t) => {
    const polite = await startCrawlSite({ bare: true, pages: 40 });
    // Every core busy: timers wake late, and a turn reserved in time is spent late.
    const hogs = Array.from({ length: availableParallelism() }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    t.after(async () => {
      hogs.forEach((hog) => hog.kill('SIGKILL'));
      await polite.close();
    });
    const start = `http://127.0.0.1:${polite.port}/gen/0`;
    await crawl({ url: start, limit: 16, crawlEntireDomain: true, maxConcurrency: 4 });
    const starts = polite.hits
      .filter((h) => h.path !== '/robots.txt' && !h.path.includes('sitemap'))
      .map((h) => h.at)
      .sort((a, b) => a - b);
    assert.equal(starts.length, 16);
    // Starts are spaced on Redis's clock; a request then reaches the site late by what the hog adds to Redis's
    // reply, a worker's first connection and the site's own loop (up to 36 ms seen with four hogs a core), never
    // early. So every later request arrives at least (j - i) * DELAY - JITTER after an earlier one: one late
    // arrival shortens only the gap after it, and two workers spacing only their own starts fall short by
    // hundreds of milliseconds over the crawl.
    const JITTER = DELAY / 2;
    let shortest = { by: -Infinity, pair: '' };
    for (let i = 0; i < starts.length; i++) {
      for (let j = i + 1; j < starts.length; j++) {
        const by = (j - i) * DELAY - (starts[j]! - starts[i]!);
        if (by > shortest.by) shortest = { by, pair: `${i} to ${j}` };
      }
    }
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    assert.ok(
      shortest.by <= JITTER,
      `requests ${shortest.pair} are ${shortest.by} ms closer than their spacing; gaps: ${gaps.join(', ')} ms`,
    );
  });

  test('kill -9 of the holding process ends its session: 410 with the cause from the process left', async () => {
    const made = await call('POST', '/v2/browser', { ttl: 120 });
    const id = made.json.id as string;
    const listed = await call('GET', '/v2/browser?status=active');
    const mine = (listed.json.sessions as SessionShown[]).find((s) => s.id === id)!;
    const holder = fleet.apis.find((child) => mine.holder.includes(`:${child.pid}:`))!;
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
