import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { Logger } from '../lib/logger.js';
import {
  ActionFailedError,
  TargetBlockedError,
  TargetCertificateError,
  TargetUnreachableError,
  toAppError,
} from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { Gate } from '../lib/gate.js';
import type { Proxies } from '../lib/proxy-route.js';
import { meteredTenant } from '../tenants/metering.js';
import type { Meter } from '../tenants/metering.js';
import { DEFAULT_TENANT } from '../tenants/tenant.js';
import { assertTargetAllowed } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import { isAdHost } from './ad-hosts.js';
import { emptyOutputs, producesOutput, runAction } from './browser-actions.js';
import { GuardedProxy } from './browser-proxy.js';
import type { Lane, Upstream } from './browser-proxy.js';
import { captureHtml } from './browser-capture.js';
import { watchClearance } from './browser-clearance.js';
import { browserPid, killProcessGroup } from './browser-process.js';
import { readBranding } from './browser-branding.js';
import { removeConsentWalls } from './browser-consent.js';
import type { BrowserAction } from './browser-actions.js';
import type { Engine, FetchRequest, FetchedPage } from './types.js';
import type { Identity } from './identity.js';
import { signRequests } from './browser-signing.js';
import type { WebBotAuth } from '../lib/web-bot-auth.js';

export interface BrowserEngineOptions extends GuardOptions {
  executablePath: string;
  maxPages: number;
  /** Who pages say they are (USER_AGENT): the User-Agent each context is given. */
  identity: Identity;
  /** Longest page HTML captured with shadow roots and frames inlined (MAX_RESPONSE_BYTES). */
  maxHtmlChars: number;
  /** How long a page's context may take to close once its work is over before Chromium is killed. */
  closeGraceMs?: number;
  log?: Logger;
  /** The proxies the guarded proxy chains to (PROXY_URLS, STEALTH_PROXY_URLS); none: it connects directly. */
  proxies?: Proxies | null;
  /** Where the time each render holds a page counts, to its tenant (src/tenants/usage.ts). */
  meter?: Meter;
  /** Signs every request of the pages (WEB_BOT_AUTH_KEY; browser-signing.ts); none: unsigned. */
  webBotAuth?: WebBotAuth | null;
}

/** What a browser fetch may do beyond loading the page. */
export interface BrowserRequest extends FetchRequest {
  waitFor?: number;
  waitForSelector?: string;
  actions?: BrowserAction[];
  screenshot?: { type: 'png' | 'jpeg'; fullPage: boolean };
  /** Read the computed styles the branding format is made of. */
  branding?: boolean;
  /** Refuse requests to ad and tracker hosts (default true). */
  blockAds?: boolean;
  /** Inline iframe documents where they stand (default true; off when the request excludes `iframe`). */
  inlineIframes?: boolean;
  /** Whose page this is: while several tenants wait for a page of the pool, they take the free ones in turn. */
  tenant?: string;
}

/** A phone's screen and browser (a recent iPhone's as Chromium's device list describes it). */
export const MOBILE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

/** The browser's language: the first tag of the request's Accept-Language, as a browser would have it set. */
function localeOf(headers: Record<string, string>): string | undefined {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'accept-language')?.[1];
  const first = value?.split(',')[0]?.split(';')[0]?.trim();
  return first && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(first) ? first : undefined;
}

/** Tallest full-page screenshot taken (px): an endless feed must not become a gigabyte image. */
const MAX_FULL_PAGE_HEIGHT = 16_384;

/** The whole page's area, cut at MAX_FULL_PAGE_HEIGHT. */
async function fullPageClip(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  const size = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  return {
    x: 0,
    y: 0,
    width: Math.max(1, Math.min(size.width, viewport.width)),
    height: Math.max(1, Math.min(size.height, MAX_FULL_PAGE_HEIGHT)),
  };
}

/** Flags for a root service on a closed network: no sandbox, no background traffic, no GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  // Chromium's own calls home (form autofill) would leave through the proxies (paid ones too).
  '--disable-features=AutofillServerCommunication',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--disable-quic',
  '--mute-audio',
  // Headless Chromium driven over DevTools sets navigator.webdriver, which sites' bot checks read first.
  '--disable-blink-features=AutomationControlled',
  // WebRTC would open UDP flows around the proxy: only proxied (TCP) connections are allowed.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** Longest wait for Chromium to start; the pages waiting on it fail with their own deadlines sooner. */
const LAUNCH_TIMEOUT_MS = 30_000;

/** Time a context gets to close once its page's work is over before its Chromium is killed. */
const DEFAULT_CLOSE_GRACE_MS = 5000;

interface LaunchedBrowser {
  browser: Browser;
  /** Chromium's browser process (null when Chromium did not say). */
  pid: number | null;
}

/**
 * Headless Chromium (Debian's, or CHROMIUM_PATH) through playwright-core. Launched once, lazily; each
 * request gets a fresh context (no cookies shared between callers) from a pool of `maxPages`, which tenants
 * waiting for one take in turn. Every request the page makes, subresources, iframes and WebSockets included,
 * leaves through a guarded proxy in this process (browser-proxy.ts): Chromium resolves no names itself.
 * When a request's deadline expires the caller gets its answer at once and the page's context is closed from
 * outside, whatever its scripts are doing; its pool slot comes back when the context is closed, or when its
 * Chromium is killed after `closeGraceMs` (see withSlot).
 */
export class BrowserEngine implements Engine {
  readonly name = 'browser' as const;
  private browser: Promise<LaunchedBrowser> | null = null;
  private readonly slots: Gate;
  /** One proxy refuses ad and tracker hosts as well (blockAds), the other only what the guard refuses. */
  private readonly proxies: { blocking: GuardedProxy; plain: GuardedProxy };
  launches = 0;
  /** Times Chromium was killed because a context would not close. */
  kills = 0;

  constructor(private readonly options: BrowserEngineOptions) {
    this.slots = new Gate('browser page', options.maxPages, Number.POSITIVE_INFINITY);
    this.proxies = {
      blocking: new GuardedProxy({ ...options, refuseHost: isAdHost }),
      plain: new GuardedProxy(options),
    };
  }

  static available(executablePath: string): boolean {
    return existsSync(executablePath);
  }

  /** Pages open right now and the pool size (for tests and health). */
  stats(): { active: number; max: number; launches: number } {
    return { active: this.slots.active, max: this.options.maxPages, launches: this.launches };
  }

  fetchPage(req: BrowserRequest, deadline: Deadline): Promise<FetchedPage> {
    const locale = localeOf(req.headers);
    const proxy = req.blockAds === false ? this.proxies.plain : this.proxies.blocking;
    // A profile's page starts from its cookies and local storage, and gives back what it ends with.
    const before = req.cookies?.state();
    const use = async (context: BrowserContext): Promise<FetchedPage> => {
      const page = await this.load(context, proxy, req, deadline);
      if (before) req.cookies!.absorb(before, await context.storageState());
      return page;
    };
    const route = this.options.proxies?.route(req.proxy ?? 'basic') ?? null;
    const upstream = route ? { route, session: req.session ?? randomUUID() } : null;
    // A request's own User-Agent is its page's too, so that navigator.userAgent says what the headers say.
    const own = Object.entries(req.headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
    const work = this.options.identity.personas().then((personas) =>
      this.withSlot(deadline, req.tenant, proxy, upstream, use, {
        // Chromium derives navigator.userAgentData and sec-ch-ua from the User-Agent it is given (platform,
        // mobile) and its own version (brands): with the personas' User-Agent they agree with the http engine's.
        userAgent: own ?? (req.mobile ? personas.mobile : personas.desktop).userAgent,
        ...(req.mobile ? MOBILE : {}),
        ...(locale ? { locale } : {}),
        ...(req.skipTlsVerification ? { ignoreHTTPSErrors: true } : {}),
        ...(before ? { storageState: before } : {}),
      }),
    );
    return deadline.race(work, 'the browser render').catch((err: unknown) => {
      throw toAppError(err);
    });
  }

  async close(): Promise<void> {
    const launched = this.browser;
    this.browser = null;
    if (launched) await (await launched.catch(() => null))?.browser.close().catch(() => undefined);
    await Promise.all([this.proxies.blocking.close(), this.proxies.plain.close()]);
  }

  private launch(): Promise<LaunchedBrowser> {
    if (!this.browser) {
      this.launches++;
      // playwright-core is loaded on first use: services that never render in a browser don't pay for it.
      const launched = import('playwright-core')
        .then(({ chromium }) =>
          chromium.launch({
            executablePath: this.options.executablePath,
            headless: true,
            args: CHROMIUM_ARGS,
            timeout: LAUNCH_TIMEOUT_MS,
          }),
        )
        .then(async (browser) => {
          browser.on('disconnected', () => {
            if (this.browser === launched) this.browser = null;
          });
          return { browser, pid: await browserPid(browser) };
        });
      this.browser = launched;
      launched.catch(() => {
        if (this.browser === launched) this.browser = null;
      });
    }
    return this.browser;
  }

  /**
   * Runs `use` with a fresh context and frees its slot, whatever the page does. When the deadline passes
   * the context is closed from outside, which ends a page stuck in a script (`while (true) {}`) and every
   * call waiting on it; a context that does not close within the grace period has its Chromium killed
   * (its renderer or the browser is hung) and the next page launches a new one. With an `upstream`, the
   * context gets a lane of the proxy of its own, chained to the upstream proxies, closed with the context.
   */
  private async withSlot<T>(
    deadline: Deadline,
    tenant: string | undefined,
    proxy: GuardedProxy,
    upstream: Upstream | null,
    use: (context: BrowserContext) => Promise<T>,
    emulation: BrowserContextOptions = {},
  ): Promise<T> {
    try {
      await this.slots.enter(deadline.signal, tenant);
    } catch {
      throw deadline.timeoutError('waiting for a browser page');
    }
    const held = performance.now();
    let launched: LaunchedBrowser | null = null;
    let opening: Promise<BrowserContext> | null = null;
    let lane: Lane | null = null;
    try {
      if (deadline.expired) throw deadline.timeoutError('waiting for a browser page');
      launched = await deadline.race(this.launch(), 'the browser launch');
      lane = upstream ? await proxy.lane(upstream) : null;
      opening = launched.browser.newContext({
        viewport: { width: 1280, height: 800 },
        serviceWorkers: 'block',
        proxy: { server: lane?.url ?? (await proxy.url()) },
        ...emulation,
      });
      const context = await deadline.race(opening, 'opening a browser page');
      return await deadline.race(use(context), 'the browser render');
    } finally {
      const browserMs = Math.round(performance.now() - held);
      this.options.meter?.add(tenant ?? meteredTenant() ?? DEFAULT_TENANT, { browserMs });
      if (opening) await this.closeContext(launched!, opening);
      lane?.close();
      this.slots.leave();
    }
  }

  /**
   * Closes a context (one still opening included) within the grace period, or kills the Chromium that holds
   * it: a browser that cannot open or close a context within seconds is wedged.
   */
  private async closeContext(launched: LaunchedBrowser, opening: Promise<BrowserContext>): Promise<void> {
    const graceMs = this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      opening.then(
        (context) => context.close().then(() => true),
        () => true,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]).catch(() => true);
    clearTimeout(timer);
    if (closed) return;
    this.kills++;
    this.options.log?.warn(
      { pid: launched.pid, graceMs },
      'browser: a page context did not open or close within its grace period; Chromium is killed and relaunched on next use',
    );
    if (this.browser && (await this.browser.catch(() => null)) === launched) this.browser = null;
    if (launched.pid === null) void launched.browser.close().catch(() => undefined);
    else killProcessGroup(launched.pid);
  }

  private async load(
    context: BrowserContext,
    proxy: GuardedProxy,
    req: BrowserRequest,
    deadline: Deadline,
  ): Promise<FetchedPage> {
    // Scheme, IP literals and localhost names fail here at once; a name is checked by the proxy when it connects.
    assertTargetAllowed(req.url, this.options);
    await sendHeaders(context, req);
    if (this.options.webBotAuth) await signRequests(context, this.options.webBotAuth);
    const page = await context.newPage();
    page.setDefaultTimeout(Math.max(1, deadline.remainingMs()));
    const clearance = watchClearance(page);
    const redirects: string[] = [];
    let failedNavigation: string | null = null;
    let lastNavigation = req.url.href;
    page.on('request', (r) => {
      if (!r.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
      lastNavigation = r.url();
      if (r.redirectedFrom()) redirects.push(r.redirectedFrom()!.url());
    });
    page.on('requestfailed', (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) failedNavigation = r.url();
    });
    let response;
    try {
      response = await page.goto(req.url.href, {
        waitUntil: 'load',
        timeout: Math.max(1, deadline.remainingMs()),
      });
    } catch (err) {
      if (deadline.expired) throw deadline.timeoutError('the browser render');
      const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      // The proxy's reason when the page's own navigation (a redirect hop included) was refused or no
      // upstream proxy could carry it.
      const failure = proxy.failureFor(failedNavigation ?? req.url.href);
      if (failure) throw failure;
      // As over http: a name that does not exist or a certificate that fails is no reason to try again.
      const why = `Browser could not load ${req.url.host}: ${message}`;
      if (/ERR_CERT_/.test(message)) throw new TargetCertificateError(why);
      throw new TargetUnreachableError(why, { permanent: /ERR_NAME_NOT_RESOLVED/.test(message) });
    }
    // A plain-HTTP hop the proxy refused comes back as its 403, marked (its 502 when no upstream proxy could).
    const refusedBy = response ? await response.headerValue('x-pagewright-refused') : null;
    if (refusedBy) {
      throw (
        proxy.failureFor(response!.url()) ?? new TargetBlockedError('Refused: private or reserved address')
      );
    }
    // A challenge page (a WAF interstitial) is waited out: what is read is the page it lets through.
    const { challenge, response: answer } = await clearance.pass(response ?? null, deadline);
    response = answer;
    await settle(page, deadline);
    if (req.waitFor) await page.waitForTimeout(Math.min(req.waitFor, deadline.remainingMs()));
    if (req.waitForSelector) {
      await page
        .waitForSelector(req.waitForSelector, { timeout: Math.max(1, deadline.remainingMs()) })
        .catch(() => {
          throw deadline.expired
            ? deadline.timeoutError(`waitForSelector '${req.waitForSelector}'`)
            : new ActionFailedError(`waitForSelector: '${req.waitForSelector}' did not appear`);
        });
    }
    const outputs = emptyOutputs();
    for (const [index, action] of (req.actions ?? []).entries()) {
      try {
        await runAction(page, action, deadline, outputs);
      } catch (err) {
        if (deadline.expired) throw deadline.timeoutError(`actions[${index}] (${action.type})`);
        const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
        throw new ActionFailedError(`actions[${index}] (${action.type}) failed: ${message}`);
      }
    }
    // A script that sent the page somewhere unreachable or refused leaves Chromium's error page, not content:
    // looked for before the capture and after it (the navigation may land while the page is read).
    const notAnErrorPage = (): void => {
      if (!page.url().startsWith('chrome-error:')) return;
      const target = failedNavigation ?? lastNavigation;
      const refused = proxy.refusalFor(target);
      if (refused)
        throw new TargetBlockedError(`The page navigated to ${target}, which was refused: ${refused}`);
      throw new TargetUnreachableError(`The page navigated to ${target}, which could not be loaded`);
    };
    notAnErrorPage();
    await removeConsentWalls(page);
    const html = await captureHtml(page, {
      iframes: req.inlineIframes !== false,
      maxChars: this.options.maxHtmlChars,
    });
    notAnErrorPage();
    const branding = req.branding ? await readBranding(page) : undefined;
    const shot = req.screenshot;
    const screenshot = shot
      ? `data:image/${shot.type};base64,${(
          await page.screenshot({
            type: shot.type,
            fullPage: shot.fullPage,
            ...(shot.fullPage ? { clip: await fullPageClip(page) } : {}),
            ...(shot.type === 'jpeg' ? { quality: 80 } : {}),
          })
        ).toString('base64')}`
      : undefined;
    const headers = response ? await response.allHeaders().catch(() => ({})) : {};
    return {
      url: page.url(),
      status: response?.status() ?? 200,
      // page.content() is the live DOM as text: the body is UTF-8 HTML whatever the server sent.
      headers: { ...withoutEncoding(headers), 'content-type': 'text/html; charset=utf-8' },
      body: Buffer.from(html, 'utf8'),
      redirects,
      screenshot,
      ...(branding !== undefined ? { branding } : {}),
      ...(producesOutput(req.actions) ? { actions: outputs } : {}),
      ...(challenge ? { challenge } : {}),
    };
  }
}

/**
 * The request's headers for the page. A Cookie header becomes cookies of the target's host, so it goes to
 * the site asked for and never to the third parties the page calls; the other headers go with every request.
 */
async function sendHeaders(context: BrowserContext, req: BrowserRequest): Promise<void> {
  const entries = Object.entries(req.headers);
  const cookie = entries.find(([name]) => name.toLowerCase() === 'cookie')?.[1];
  const others = Object.fromEntries(entries.filter(([name]) => name.toLowerCase() !== 'cookie'));
  if (Object.keys(others).length > 0) await context.setExtraHTTPHeaders(others);
  if (!cookie) return;
  const cookies = cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.includes('='))
    .map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), url: req.url.origin };
    })
    .filter((c) => c.name !== '');
  if (cookies.length > 0) await context.addCookies(cookies);
}

function withoutEncoding(headers: Record<string, string>): Record<string, string> {
  // Cookies stay in the browser context (and a profile's jar): never on with the page towards a document.
  const {
    'content-encoding': _encoding,
    'content-length': _length,
    'set-cookie': _cookies,
    ...rest
  } = headers;
  return rest;
}

/**
 * Gives client-side rendering a moment after `load`: until no request has been in flight for 150 ms
 * (data fetched by scripts has arrived), 2 s at most. Shorter than Playwright's 500 ms "networkidle".
 */
async function settle(page: Page, deadline: Deadline): Promise<void> {
  const quietMs = 150;
  const limit = Date.now() + Math.min(2000, deadline.remainingMs());
  let inFlight = 0;
  let lastActivity = Date.now();
  const started = (): void => {
    inFlight++;
    lastActivity = Date.now();
  };
  const ended = (): void => {
    inFlight = Math.max(0, inFlight - 1);
    lastActivity = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    while (Date.now() < limit && (inFlight > 0 || Date.now() - lastActivity < quietMs)) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}
