import assert from 'node:assert/strict';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { processTree } from '../../src/sessions/host/process-memory.js';
import { rawCdp } from '../fixtures/cdp-client.js';
import type { RawCdp } from '../fixtures/cdp-client.js';
import { noChromium, startSessionService } from '../fixtures/session-service.js';
import type { SessionService } from '../fixtures/session-service.js';

/**
 * A session's pages reach the web through the guarded proxy and nothing else: not the loopback (127.0.0.2,
 * localhost, [::1]) from a context the client made itself, by navigation or by the page's fetch; and not
 * Chromium's DevTools, which has no port to be found.
 */

let svc: SessionService;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The loopback URLs of the sentinel, by every name a page may give them. */
const privateUrls = () => [
  `http://127.0.0.2:${svc.sentinelPort}/by-address`,
  `http://localhost:${svc.sentinelPort}/by-name`,
  `http://[::1]:${svc.sentinelPort}/by-ipv6`,
  `http://private.test:${svc.sentinelPort}/by-dns`,
  `http://[::ffff:127.0.0.2]:${svc.sentinelPort}/by-mapped`,
];

/** Chromium processes descending from this test process, with their command lines. */
function chromiumProcesses(): { pid: number; args: string[] }[] {
  return processTree(process.pid)
    .map((pid) => {
      try {
        return { pid, args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') };
      } catch {
        return { pid, args: [] };
      }
    })
    .filter((p) => p.args.some((a) => /chrom/.test(a)) && !p.args.some((a) => a.startsWith('--type=')));
}

/** TCP ports listening in this (the service's) network namespace that belong to `pid`. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const link = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]!);
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

async function attachTo(cdp: RawCdp, targetId: string): Promise<string> {
  const attached = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  return String(attached.result!.sessionId);
}

for (const mode of ['auto', 'shared']) {
  describe(
    `a session's only way out is the guarded proxy (SESSION_ISOLATION=${mode})`,
    { skip: noChromium },
    () => {
      before(async () => {
        svc = await startSessionService({ SESSION_ISOLATION: mode });
      });
      after(() => svc?.close());

      test('a context the client creates reaches no loopback address, by navigation or by fetch', async () => {
        const made = await svc.api('POST', '/v2/browser', {});
        const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
        const context = await cdp.send('Target.createBrowserContext', {});
        assert.equal(context.error, undefined, JSON.stringify(context.error));
        const target = await cdp.send('Target.createTarget', {
          url: 'about:blank',
          browserContextId: context.result!.browserContextId,
        });
        const page = await attachTo(cdp, String(target.result!.targetId));
        for (const url of privateUrls()) {
          await cdp.send('Page.navigate', { url }, page);
          await sleep(300);
        }
        await cdp.send('Page.navigate', { url: `${svc.site}/public` }, page);
        await sleep(500);
        const fetches = privateUrls().map(
          (u) => `fetch(${JSON.stringify(u)}, {mode: 'no-cors'}).catch(() => 0)`,
        );
        await cdp.send(
          'Runtime.evaluate',
          { expression: `Promise.all([${fetches.join(',')}])`, awaitPromise: true },
          page,
        );
        // The public site is reached through the same context: the proxy works, and refuses only what it must.
        const title = await cdp.send(
          'Runtime.evaluate',
          { expression: 'document.title', returnByValue: true },
          page,
        );
        assert.equal((title.result!.result as { value: string }).value, '/public');
        assert.deepEqual(svc.sentinelHits, [], 'the private network was never reached');
        cdp.close();
        await svc.api('DELETE', `/v2/browser/${made.json.id}`);
      });

      test("Playwright's browser.newContext() over cdpUrl reaches no loopback address either", async () => {
        const made = await svc.api('POST', '/v2/browser', {});
        const browser = await chromium.connectOverCDP(made.json.cdpUrl, { headers: svc.headers() });
        try {
          const context = await browser.newContext();
          const page = await context.newPage();
          for (const url of privateUrls()) {
            const answer = await page.goto(url, { timeout: 10_000 }).catch((err: Error) => err);
            if (!(answer instanceof Error)) assert.notEqual(answer?.status(), 200, url);
          }
          const fresh = await context.newPage();
          await fresh.goto(`${svc.site}/fine`);
          assert.equal(await fresh.title(), '/fine');
          assert.deepEqual(svc.sentinelHits, []);
        } finally {
          await browser.close();
        }
        await svc.api('DELETE', `/v2/browser/${made.json.id}`);
      });

      test('no Chromium of the service listens on a port: a page finds no DevTools to open', async () => {
        const made = await svc.api('POST', '/v2/browser', {});
        const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
        const page = await cdp.attachToPage();
        await cdp.send('Page.navigate', { url: `${svc.site}/probe` }, page);
        await sleep(500);
        const browsers = chromiumProcesses();
        assert.ok(browsers.length > 0, 'the session has a Chromium');
        for (const { pid, args } of browsers) {
          assert.ok(
            !args.some((a) => a.startsWith('--remote-debugging-port')),
            `pid ${pid}: ${args.join(' ')}`,
          );
          const ports = listeningPorts(pid);
          // Were there one, a page of the session would try it as an attacker does: /json/version, then its socket.
          for (const port of ports) {
            const probe = `fetch('http://127.0.0.1:${port}/json/version').then((r) => r.text(), (e) => 'refused: ' + e)`;
            const answer = await cdp.send(
              'Runtime.evaluate',
              { expression: probe, awaitPromise: true, returnByValue: true },
              page,
            );
            assert.doesNotMatch(JSON.stringify(answer.result), /webSocketDebuggerUrl/, `port ${port}`);
          }
          assert.deepEqual(ports, [], `Chromium ${pid} listens on no TCP port`);
        }
        cdp.close();
        await svc.api('DELETE', `/v2/browser/${made.json.id}`);
      });
    },
  );
}
