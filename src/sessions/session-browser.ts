import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS, browserPid, killProcessGroup } from '../engines/browser.js';
import { ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/sleep.js';

/** The sessions' Chromium: Playwright's handle on it (pipe), and its CDP endpoint on loopback for the proxy. */
export interface LaunchedSessionBrowser {
  browser: Browser;
  /** `ws://127.0.0.1:<port>/devtools/browser/<id>`: reached only by this process's CDP proxy. */
  endpoint: string;
  pid: number | null;
}

const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * Chromium's DevTools port, from the DevToolsActivePort file it writes in its profile folder (Playwright
 * chooses the folder and passes it on the command line, which /proc shows).
 */
async function endpointOf(pid: number): Promise<string> {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const dir = argv.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
  if (!dir) throw new Error('Chromium was started without --user-data-dir');
  for (let tries = 0; tries < 100; tries++) {
    try {
      const [port, wsPath] = readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n');
      if (port && wsPath) return `ws://127.0.0.1:${port.trim()}${wsPath.trim()}`;
    } catch {
      // Not written yet.
    }
    await sleep(50);
  }
  throw new Error('Chromium did not write its DevTools port');
}

/**
 * A Chromium of the sessions' own, apart from the scrape engine's (whose contexts are killed with their
 * browser when they hang): launched on the first session, with its DevTools port on loopback (only the CDP
 * proxy connects to it; pages cannot, their connections go through the guarded proxy, which refuses
 * loopback, and Chromium refuses WebSocket connections that carry a web page's Origin).
 */
export class SessionBrowser {
  private launched: Promise<LaunchedSessionBrowser> | null = null;

  constructor(private readonly options: { executablePath: string; log?: Logger }) {}

  get(): Promise<LaunchedSessionBrowser> {
    if (!this.launched) {
      const launched = this.launch();
      this.launched = launched;
      launched.catch(() => {
        if (this.launched === launched) this.launched = null;
      });
    }
    return this.launched;
  }

  private async launch(): Promise<LaunchedSessionBrowser> {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, '--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1'],
      timeout: LAUNCH_TIMEOUT_MS,
    });
    const pid = await browserPid(browser);
    try {
      if (pid === null) throw new Error('Chromium did not report its process id');
      const endpoint = await endpointOf(pid);
      browser.on('disconnected', () => {
        this.launched = null;
      });
      return { browser, endpoint, pid };
    } catch (err) {
      await browser.close().catch(() => undefined);
      throw new ServiceUnavailableError(
        `Browser sessions are unavailable: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  async close(): Promise<void> {
    const launched = this.launched;
    this.launched = null;
    const running = await launched?.catch(() => null);
    if (!running) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      running.browser.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
    ]).catch(() => false);
    clearTimeout(timer);
    if (!closed && running.pid !== null) killProcessGroup(running.pid);
  }
}
