import { STATIC_PAGE_WORDS } from '../content/client-rendered.js';
import { planEngine } from '../engines/plan.js';
import { actionProblem } from '../engines/browser-actions.js';
import type { Engine, FetchedPage, FetchRequest, PassedChallenge } from '../engines/types.js';
import type { CookieJarHandle } from '../engines/cookie-jar.js';
import { BadRequestError, toAppError } from '../errors.js';
import type { AppError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { Metrics } from '../lib/metrics.js';
import { checkCallerHeaders } from '../lib/request-headers.js';
import { sleep } from '../lib/sleep.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import { creditsOf } from '../tenants/credits.js';
import { meteredAs, meteredTenant } from '../tenants/metering.js';
import type { PageMeter } from '../tenants/metering.js';
import { DEFAULT_TENANT } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import { pageSlotWithin } from '../tenants/page-slots.js';
import type { PageSlots } from '../tenants/page-slots.js';
import type { TreeLimits } from '../content/parse/tree-limits.js';
import { ChallengePasses, challengeNote } from './challenge-pass.js';
import type { ContentPool } from './content-pool.js';
import type { CssExtraction, RenderedPage } from './page-document.js';
import { proxyPlan, throughProxies } from './proxy-choice.js';
import type { ProxyTiers } from './proxy-choice.js';
import { TRANSIENT_STATUSES, retryAfterMs, retryDelayMs } from './retry.js';

/** A retry within a scrape's deadline is made only when this much would be left for it after the wait. */
const MIN_ATTEMPT_MS = 1000;

/** MAX_RETRIES and MAX_RETRY_AFTER_MS. */
export interface RetrySettings {
  /** Retries of a transient failure when the request does not set `maxRetries`. */
  maxRetries: number;
  /** The longest Retry-After honoured. */
  maxRetryAfterMs: number;
}

export interface ScrapeDeps {
  http: Engine;
  browser: Engine | null;
  content: ContentPool;
  /** Bounds of the HTML tree handled. */
  treeLimits?: TreeLimits;
  /** Pages fetched by engine and outcome, bytes fetched. */
  metrics?: Metrics;
  retries: RetrySettings;
  /**
   * The cookie jar of the scrape or job whose pages these are, when it uses a profile (jobs/profile-session.ts):
   * every page's fetch, on either engine, sends and keeps its cookies.
   */
  cookies?: CookieJarHandle;
  /**
   * The anti-bot challenges the job passed, by host, and the clearances its later pages carry (one per crawl or
   * batch, started from `cookies`); absent, each call passes its own.
   */
  challenges?: ChallengePasses;
  /** The tiers of proxies the server has, for a page's `proxy` option (absent: no stealth proxies). */
  proxies?: ProxyTiers | null;
  /**
   * Each tenant's pages in flight (MAX_SCRAPES_PER_TENANT): a page whose request names its caller holds one of
   * that tenant's slots while it is fetched and converted (a crawl's page is given one by its crawl).
   */
  pageSlots?: PageSlots;
  /**
   * Where pages and credits are counted, and a tenant's pages of the day checked before a page is fetched: the
   * page's `caller`'s tenant, else the tenant of the work running (metering.ts).
   */
  usage?: PageMeter;
}

/** What the target answered to one fetch: its status and Retry-After (in ms, capped; null when none). */
export interface TargetAnswer {
  status: number;
  retryAfterMs: number | null;
}

/** A crawl's page whose fetch answered transiently while it has retries left: not rendered, fetched again later. */
export interface RetryLater {
  retryLater: TargetAnswer;
}

/** How one call fetches a page again. */
interface Attempts {
  /** Retries made here, within the deadline (a scrape's); a crawl retries through its frontier instead. */
  retries: number;
  /** Fetches of the page made before this call (a crawl's page put back after a transient failure). */
  before: number;
  /** A transient answer to the last fetch allowed here comes back as RetryLater instead of being rendered. */
  deferLast: boolean;
  /** Hears every answer of the target (the crawl's host throttling). */
  observe?: (answer: TargetAnswer) => void;
}

/** One page with the native API's per-page options (shared by scrape and crawl). */
export interface PageRequest {
  url: URL;
  sourceUrl: string;
  options: ScrapeOptions;
  /** Also return every link on the page (crawl, map). */
  discover?: boolean;
  /** Also return the links that continue a paginated listing (a crawl that follows them). */
  pagination?: boolean;
  /** The facts only a native document shows (content/build.ts); default true. */
  facts?: boolean;
  /** Run CSS extraction on the page's tree in the content worker (extract). */
  cssExtract?: CssExtraction;
  /** The sticky key of proxy rotation (a job's id): a host keeps its proxy for the whole job. */
  session?: string;
  /** The tenant the page is fetched for (a job's owner, a request's caller): whose usage and limits it counts to. */
  caller?: Caller;
}

/** Checks a page's options before anything is fetched, so bad input fails fast and once. */
export function checkPageOptions(options: ScrapeOptions, browserAvailable: boolean) {
  const formats = options.formats ?? ['markdown'];
  const fullPage = formats.includes('screenshot@fullPage');
  if (fullPage && formats.includes('screenshot')) {
    throw new BadRequestError('formats: screenshot and screenshot@fullPage cannot both be asked for');
  }
  const headers = checkCallerHeaders(options.headers);
  for (const [index, action] of (options.actions ?? []).entries()) {
    const problem = actionProblem(action);
    if (problem) throw new BadRequestError(`actions[${index}]: ${problem}`);
  }
  const plan = planEngine(
    options.engine ?? 'auto',
    {
      screenshot: options.screenshot === true || formats.includes('screenshot') || fullPage,
      waitFor: (options.waitFor ?? 0) > 0,
      waitForSelector: options.waitForSelector !== undefined,
      actions: (options.actions?.length ?? 0) > 0,
      branding: formats.includes('branding'),
    },
    browserAvailable,
  );
  const screenshot =
    options.screenshot === true || formats.includes('screenshot') || fullPage
      ? { type: options.screenshotFormat ?? 'png', fullPage }
      : undefined;
  return { formats, headers, plan, screenshot };
}

/** Fetches a page, counted by engine and outcome (ok, or the error's code) with the bytes it brought. */
async function fetchCounted(
  engine: Engine,
  request: FetchRequest,
  deadline: Deadline,
  metrics: Metrics | undefined,
): Promise<FetchedPage> {
  try {
    const page = await engine.fetchPage(request, deadline);
    metrics?.pageFetched(engine.name, 'ok', page.body.length);
    return page;
  } catch (err) {
    metrics?.pageFetched(engine.name, toAppError(err).code, 0);
    throw err;
  }
}

/**
 * Fetches with `engine`, again after each transient failure (a retryable error, or a 408, 429, 502, 503, 504
 * answer) while `attempts.retries` allow and the deadline leaves room for the wait and one more attempt; the
 * wait is the backoff of retry.ts, at least the answer's Retry-After. The last answer is the result (a 503
 * page is a page), or the last error is thrown; permanent causes are never fetched again.
 */
async function fetchWithRetries(
  engine: Engine,
  request: FetchRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
  attempts: Attempts,
): Promise<{ page: FetchedPage; fetches: number } | RetryLater> {
  for (let fetches = 1; ; fetches++) {
    let page: FetchedPage | null = null;
    let failure: AppError | null = null;
    try {
      page = await fetchCounted(engine, request, deadline, deps.metrics);
    } catch (err) {
      failure = toAppError(err);
    }
    const answer = page
      ? {
          status: page.status,
          retryAfterMs: retryAfterMs(page.headers['retry-after'], deps.retries.maxRetryAfterMs),
        }
      : null;
    if (answer) attempts.observe?.(answer);
    const transient = answer ? TRANSIENT_STATUSES.has(answer.status) : failure!.retryable;
    if (transient && fetches <= attempts.retries) {
      const wait = retryDelayMs(attempts.before + fetches, answer?.retryAfterMs ?? null);
      if (!deadline.expired && wait + MIN_ATTEMPT_MS <= deadline.remainingMs()) {
        await sleep(wait, deadline.signal);
        deadline.check('the wait before a retry');
        continue;
      }
    } else if (transient && answer && attempts.deferLast) return { retryLater: answer };
    if (failure) throw failure;
    return { page: page!, fetches };
  }
}

/**
 * Validate, choose the engine, fetch within the deadline (a transient failure is fetched again, `maxRetries`
 * times or MAX_RETRIES), build the requested formats; with one of the caller's page slots held throughout,
 * waited for within half the deadline (then 429).
 */
export async function fetchAndRender(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<RenderedPage> {
  const retries = req.options.maxRetries ?? deps.retries.maxRetries;
  const slot =
    deps.pageSlots && req.caller ? await pageSlotWithin(deps.pageSlots, req.caller.tenant, deadline) : null;
  try {
    // Without deferLast a transient last answer is rendered like any other: never a RetryLater.
    return (await renderWithRetries(req, deadline, deps, {
      retries,
      before: 0,
      deferLast: false,
    })) as RenderedPage;
  } finally {
    slot?.release();
  }
}

/**
 * One fetch of a crawl's page: the crawl retries through its frontier, so nothing is retried here; a
 * transient answer while the page has retries left comes back as RetryLater, unrendered. `before` is the
 * page's fetches so far (its `metadata.attempts` counts them); `observe` hears the target's answer.
 */
export function fetchForCrawl(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
  attempt: { before: number; retryLeft: boolean; observe: (answer: TargetAnswer) => void },
): Promise<RenderedPage | RetryLater> {
  const { before, retryLeft, observe } = attempt;
  return renderWithRetries(req, deadline, deps, { retries: 0, before, deferLast: retryLeft, observe });
}

/**
 * A page counted to its tenant: refused past its pages of the day; one page when the target answered (a
 * RetryLater is counted when it is fetched again), its credits (tenants/credits.ts) when its document is
 * built. What the page starts (a browser render, a document parsed) runs metered to the tenant.
 */
async function renderWithRetries(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
  attempts: Attempts,
): Promise<RenderedPage | RetryLater> {
  const tenant = req.caller?.tenant ?? meteredTenant() ?? DEFAULT_TENANT;
  await deps.usage?.checkPages(tenant);
  let answered = false;
  const counted = (): void => {
    if (!answered) deps.usage?.add(tenant, { pages: 1 });
    answered = true;
  };
  const rendered = await meteredAs(tenant, () => renderFetched(req, deadline, deps, attempts, counted));
  if (!('retryLater' in rendered))
    deps.usage?.add(tenant, { credits: creditsOf(rendered.document.metadata) });
  return rendered;
}

/** Validate, choose the engine, fetch (with `attempts`), build the requested formats. */
async function renderFetched(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
  attempts: Attempts,
  answered: () => void,
): Promise<RenderedPage | RetryLater> {
  const { options } = req;
  const { formats, headers, plan, screenshot } = checkPageOptions(options, deps.browser !== null);
  const proxies = proxyPlan(options.proxy, deps.proxies);
  const choice = options.engine ?? 'auto';
  const passes = deps.challenges ?? new ChallengePasses(deps.cookies);
  // proxy "auto": a fetch the target blocks is made once more through the stealth proxies. A challenge page
  // over http is passed in the browser (engine "auto"); the host's later pages carry the clearance it got.
  const browser = deps.browser ? throughProxies(deps.browser, proxies) : null;
  const http = passes.through(
    throughProxies(deps.http, proxies),
    choice === 'auto' ? browser : null,
    choice === 'auto'
      ? 'this server has no browser engine to pass it'
      : 'engine "http" does not pass challenges',
  );
  // The challenge in front of the page last fetched, as its fetch passed it.
  const passed: { challenge?: PassedChallenge } = {};
  const render = async (
    engine: Engine,
    detectionReason: string | null,
  ): Promise<RenderedPage | RetryLater> => {
    const fetched = await fetchWithRetries(
      engine,
      {
        url: req.url,
        headers,
        skipTlsVerification: options.skipTlsVerification ?? false,
        mobile: options.mobile ?? false,
        blockAds: options.blockAds ?? true,
        inlineIframes: !(options.excludeTags ?? []).some((t) => t.toLowerCase() === 'iframe'),
        waitFor: options.waitFor,
        waitForSelector: options.waitForSelector,
        actions: options.actions,
        screenshot,
        branding: formats.includes('branding'),
        session: req.session,
        tenant: req.caller?.tenant,
        cookies: passes.cookiesFor(req.url),
        proxy: proxies.tier,
      } as FetchRequest,
      deadline,
      deps,
      attempts,
    );
    if ('retryLater' in fetched) return fetched;
    answered();
    const { page, fetches } = fetched;
    passed.challenge = page.challenge;
    deadline.check('fetch');
    // The actions' outputs (screenshots, PDFs) need no parsing: they stay on this thread.
    const { actions, ...toRender } = page;
    const rendered = await deps.content.render(
      toRender,
      {
        sourceUrl: req.sourceUrl,
        formats,
        onlyMainContent: options.onlyMainContent ?? false,
        removeBase64Images: options.removeBase64Images ?? true,
        includeTags: options.includeTags,
        excludeTags: options.excludeTags,
        detectionReason,
        discover: req.discover,
        pagination: req.pagination,
        facts: req.facts,
        limits: deps.treeLimits,
        cssExtract: req.cssExtract,
        maxDocumentPages: options.maxDocumentPages,
        documentLayout: options.documentLayout,
        parsePdf: options.parsePdf,
      },
      deadline,
    );
    deadline.check('formatting');
    if (actions) rendered.document.actions = actions;
    if (proxies.tier === 'stealth' || page.proxy === 'stealth')
      rendered.document.metadata.stealthProxy = true;
    // Absent means one fetch: a page fetched once keeps the metadata the seed contract lists, exactly.
    if (attempts.before + fetches > 1) rendered.document.metadata.attempts = attempts.before + fetches;
    return rendered;
  };
  // engine "auto": the challenge a page was behind is told in its detectionReason.
  const noted = (rendered: RenderedPage | RetryLater): RenderedPage | RetryLater => {
    const { challenge } = passed;
    if ('retryLater' in rendered || !challenge || choice !== 'auto') return rendered;
    const { metadata } = rendered.document;
    metadata.detectionReason = challengeNote(metadata.detectionReason, challenge);
    return rendered;
  };
  if (plan.engine === 'browser' && browser) return noted(await render(browser, plan.detectionReason));
  const viaHttp = await render(http, plan.detectionReason);
  // engine "auto": a page that looks client-side rendered is rendered again in the browser.
  if ('retryLater' in viaHttp || passed.challenge?.by === 'browser' || choice !== 'auto' || !browser) {
    return noted(viaHttp);
  }
  if (viaHttp.clientRendered === null) {
    const words = viaHttp.document.metadata.wordCount;
    // Without the facts the words were counted only as far as the choice reads them.
    const more = req.facts === false && words >= STATIC_PAGE_WORDS ? ' or more' : '';
    viaHttp.document.metadata.detectionReason = `static page (${words}${more} words of text): http engine`;
    return noted(viaHttp);
  }
  return noted(
    await render(
      browser,
      `client-side rendered page (${viaHttp.clientRendered}): re-rendered with the browser engine`,
    ),
  );
}
