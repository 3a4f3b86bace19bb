import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../engines/browser.js';
import type { GuardedProxy } from '../../engines/browser-proxy.js';
import { CdpMux } from './cdp-mux.js';
import type { CdpChannel } from './cdp-mux.js';
import { startChromium } from './chromium-pipe.js';
import type { SessionNamespaces } from './namespace.js';
import { treeMemory } from './process-memory.js';

export interface BrowserHostOptions {
  executablePath: string;
  proxy: GuardedProxy;
  /** Namespaces of its own (one browser per session), or null: a Chromium that sessions share. */
  namespaces: SessionNamespaces | null;
  /** The namespaces' tmpfs: the browser's profile, cache and temporary files together. */
  diskBytes: number;
  /** V8's heap ceiling in each renderer. */
  rendererHeapMb: number;
  launchTimeoutMs?: number;
}

/**
 * Playwright's switches for a browser it launches (the ones that matter without it launching), with ours: no
 * background traffic, no extension, no QUIC nor non-proxied WebRTC (every flow through the proxy).
 */
const FEATURES_OFF = [
  'AutofillServerCommunication',
  'DestroyProfileOnBrowserClose',
  'DialMediaRouteProvider',
  'GlobalMediaControls',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'Translate',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
];
const SWITCHES = [
  ...CHROMIUM_ARGS.filter((a) => !a.startsWith('--disable-features=')),
  `--disable-features=${FEATURES_OFF.join(',')}`,
  '--headless',
  '--hide-scrollbars',
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-client-side-phishing-detection',
  '--disable-component-extensions-with-background-pages',
  '--no-default-browser-check',
  '--allow-pre-commit-input',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--disable-renderer-backgrounding',
  '--force-color-profile=srgb',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
  '--no-service-autorun',
  '--disable-search-engine-choice-screen',
  '--remote-debugging-pipe',
];

/**
 * One Chromium with its DevTools on a pipe, held by this process: Playwright's connection is the pipe's root
 * (CdpMux), each CDP client gets a browser session of its own on the same pipe. With namespaces, the browser
 * runs in its own network, file and process namespaces and its only way out is the listener the guarded proxy
 * serves; without, it runs beside the service and every context of it goes through the proxy's port.
 */
export class BrowserHost {
  private ended = false;

  private constructor(
    readonly browser: Browser,
    readonly mux: CdpMux,
    /** The proxy every context of this browser must name (its only exit when isolated). */
    readonly proxyServer: string,
    readonly isolated: boolean,
    private readonly pid: number | undefined,
    /** Once, when the browser ends for any reason: why. */
    readonly exited: Promise<string>,
    private readonly release: () => void,
  ) {
    void exited.then(() => (this.ended = true));
  }

  static async launch(options: BrowserHostOptions): Promise<BrowserHost> {
    const { chromium } = await import('playwright-core');
    const heap = `--js-flags=--max-old-space-size=${options.rendererHeapMb}`;
    const cleanups: (() => void)[] = [];
    const release = (): void => {
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    };
    try {
      // The same URL inside the namespace (a listener on the same port there) and on the service's loopback.
      const proxyServer = await options.proxy.url();
      let file: string;
      let args: string[];
      let env: NodeJS.ProcessEnv;
      if (options.namespaces) {
        const port = Number(new URL(proxyServer).port);
        const ns = await options.namespaces.create({ diskBytes: options.diskBytes, port });
        cleanups.push(() => ns.close());
        cleanups.push(options.proxy.adopt(ns.listener));
        const own = [
          `--user-data-dir=/tmp/profile`,
          `--proxy-server=${proxyServer}`,
          '--proxy-bypass-list=<-loopback>',
        ];
        ({ file, args } = ns.enter(options.executablePath, [...SWITCHES, heap, ...own, 'about:blank']));
        env = { HOME: '/tmp' };
      } else {
        const profile = mkdtempSync(path.join(os.tmpdir(), 'pagewright-session-profile-'));
        cleanups.push(() => rmSync(profile, { recursive: true, force: true }));
        const own = [
          `--user-data-dir=${profile}`,
          `--proxy-server=${proxyServer}`,
          '--proxy-bypass-list=<-loopback>',
        ];
        file = options.executablePath;
        args = [...SWITCHES, heap, ...own, 'about:blank'];
        env = { HOME: profile, PATH: '/usr/bin:/bin' };
      }
      const pipe = startChromium(file, args, env);
      cleanups.push(() => pipe.kill());
      const mux = new CdpMux(pipe);
      void pipe.exited.then(release);
      const browser = await chromium.connectOverCDP(mux.root as never, {
        timeout: options.launchTimeoutMs ?? 30_000,
      });
      return new BrowserHost(
        browser,
        mux,
        proxyServer,
        options.namespaces !== null,
        pipe.pid,
        pipe.exited,
        release,
      );
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Whether the browser has ended. */
  get dead(): boolean {
    return this.ended;
  }

  /** A new CDP connection to this browser for a client (filtered by the caller). */
  channel(): Promise<CdpChannel> {
    return this.mux.channel();
  }

  /** Memory of the browser's processes together (proportional set size), in bytes. */
  memoryBytes(): number {
    return this.pid === undefined ? 0 : treeMemory(this.pid);
  }

  /** Ends the browser and everything it started; its namespaces and files go with it. */
  close(): void {
    this.release();
  }
}
