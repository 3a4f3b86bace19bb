import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { BrowserEngine } from '../../src/engines/browser.js';
import { Identity } from '../../src/engines/identity.js';
import { Deadline } from '../../src/lib/deadline.js';
import { isBlockedAddress, systemResolver } from '../../src/lib/ssrf-guard.js';
import { freePort } from '../fixtures/free-port.js';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A page whose script never yields once loaded: the renderer's main thread is lost to it. */
const BUSY_PAGE =
  '<!DOCTYPE html><div id=root></div><script>setTimeout(() => { while (true) {} }, 50)</script>';
const PLAIN_PAGE =
  '<!DOCTYPE html><title>Plain</title><main><h1>Plain page</h1><p>Rendered after the storm.</p></main>';

/** A loopback site of a few pages given as HTML by path. */
async function startPages(
  t: TestContext,
  pages: Record<string, string>,
  host = '127.0.0.1',
): Promise<string> {
  const server = createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/**
 * Chromium renderer processes descending from this test process (its service's browsers), by pid: other test
 * files running at the same time have browsers of their own, whose renderers come and go.
 */
function renderers(): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  const rows = out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const parent = new Map(rows.map((r) => [r.pid, r.ppid]));
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 20; p = parent.get(p), hops++) {
      if (p === process.pid) return true;
    }
    return false;
  };
  return rows.filter((r) => r.args.includes('--type=renderer') && ours(r.pid)).map((r) => r.pid);
}

/** Waits (bounded in polls, not in a thin wall-clock margin) until the pool has no page open. */
async function slotsBack(svc: { browserStats(): { active: number } | null }): Promise<void> {
  for (let i = 0; i < 600 && svc.browserStats()!.active > 0; i++) await sleep(100);
  assert.equal(svc.browserStats()!.active, 0, 'every browser slot came back');
}

async function plainScrapeWorks(svc: Service, url: string): Promise<void> {
  const res = await svc.post('/api/v1/scrape', { url, engine: 'browser', timeout: 60_000 });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.match((res.json.data as { markdown: string }).markdown, /Rendered after the storm/);
}

describe('hostile pages in the browser', { skip }, () => {
  test('a page that busy-loops after load gives its slot back and its renderer dies', async (t) => {
    const site = await startPages(t, { '/': BUSY_PAGE, '/plain': PLAIN_PAGE });
    const svc = await startService(t, { env: { BROWSER_MAX_PAGES: '4' } });
    await plainScrapeWorks(svc, `${site}/plain`);
    const before = renderers();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => svc.post('/api/v1/scrape', { url: `${site}/`, timeout: 5000 })),
    );
    for (const a of answers) assert.equal(a.status, 408, JSON.stringify(a.json));
    await slotsBack(svc);
    // The renderers the burst started are gone (not left at 100% CPU).
    let left: number[] = [];
    for (let i = 0; i < 100; i++) {
      left = renderers().filter((pid) => !before.includes(pid));
      if (left.length === 0) break;
      await sleep(100);
    }
    assert.deepEqual(left, [], 'no renderer of the burst is left running');
    await plainScrapeWorks(svc, `${site}/plain`);
  });

  test('an executeJavascript action that never returns gives its slot back', async (t) => {
    const site = await startPages(t, { '/plain': PLAIN_PAGE });
    const svc = await startService(t, { env: { BROWSER_MAX_PAGES: '2' } });
    const answers = await Promise.all(
      Array.from({ length: 2 }, () =>
        svc.post('/api/v1/scrape', {
          url: `${site}/plain`,
          engine: 'browser',
          timeout: 4000,
          actions: [{ type: 'executeJavascript', script: 'while (true) {}' }],
        }),
      ),
    );
    for (const a of answers) assert.equal(a.status, 408, JSON.stringify(a.json));
    await slotsBack(svc);
    await plainScrapeWorks(svc, `${site}/plain`);
  });

  test('a Chromium that hangs is killed once its page is over, and the next page gets a new one', async (t) => {
    const site = await startPages(t, { '/plain': PLAIN_PAGE, '/busy': BUSY_PAGE });
    const engine = new BrowserEngine({
      allowPrivateNetworks: true,
      resolver: systemResolver,
      executablePath: chromiumPath,
      maxPages: 1,
      identity: new Identity('Pagewright-test', chromiumPath),
      maxHtmlChars: 1_000_000,
      closeGraceMs: 500,
    });
    t.after(() => engine.close());
    const request = (path: string) => ({
      url: new URL(site + path),
      headers: {},
      skipTlsVerification: false,
    });
    await engine.fetchPage(request('/plain'), Deadline.after(60_000));
    // The browser process stops answering (as a wedged Chromium would): its context can no longer close.
    const browserPid = Number(
      execFileSync('pgrep', ['-P', String(process.pid), '-f', 'chromium'], { encoding: 'utf8' }).split(
        '\n',
      )[0],
    );
    const stopped = execFileSync('ps', ['-o', 'pid=', '--ppid', String(browserPid)], { encoding: 'utf8' })
      .split('\n')
      .map(Number)
      .filter((pid) => pid > 0);
    for (const pid of [browserPid, ...stopped]) process.kill(pid, 'SIGSTOP');
    await assert.rejects(engine.fetchPage(request('/busy'), Deadline.after(1500)), { code: 'TIMEOUT' });
    for (let i = 0; i < 300 && engine.stats().active > 0; i++) await sleep(100);
    assert.equal(engine.stats().active, 0, 'the slot came back although the context never closed');
    assert.equal(engine.kills, 1);
    const page = await engine.fetchPage(request('/plain'), Deadline.after(60_000));
    assert.match(page.body.toString(), /Rendered after the storm/);
    assert.equal(engine.stats().launches, 2, 'a new Chromium was launched');
  });

  test("a script that navigates to a refused or unreachable address is an error naming it, not Chromium's error page", async (t) => {
    const internal = await startPages(t, { '/': '<p>internal</p>' }, '127.0.0.2');
    const closedPort = await freePort();
    const navigateTo = (target: string): string =>
      `<!DOCTYPE html><p>leaving</p><script>setTimeout(() => { location.href = ${JSON.stringify(target)} }, 10)</script>`;
    const site = await startPages(t, {
      '/to-internal': navigateTo(`${internal}/`),
      '/to-closed': navigateTo(`http://127.0.0.1:${closedPort}/gone`),
    });
    const guarded = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      isBlockedAddress: (a) => a !== '127.0.0.1' && isBlockedAddress(a),
    });
    const refused = await guarded.post('/api/v1/scrape', { url: `${site}/to-internal`, engine: 'browser' });
    assert.equal(refused.status, 403, JSON.stringify(refused.json));
    assert.match(String(refused.json.error), /127\.0\.0\.2/);
    const open = await startService(t);
    const unreachable = await open.post('/api/v1/scrape', { url: `${site}/to-closed`, engine: 'browser' });
    assert.equal(unreachable.status, 502, JSON.stringify(unreachable.json));
    assert.match(String(unreachable.json.error), new RegExp(`127\\.0\\.0\\.1:${closedPort}/gone`));
  });
});
