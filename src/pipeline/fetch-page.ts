import { planEngine } from '../engines/plan.js';
import { actionProblem } from '../engines/browser-actions.js';
import type { Engine, FetchedPage, FetchRequest } from '../engines/types.js';
import { BadRequestError, toAppError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { Metrics } from '../lib/metrics.js';
import { checkCallerHeaders } from '../lib/request-headers.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import type { TreeLimits } from '../content/parse/parse.js';
import type { ContentPool } from './content-pool.js';
import type { CssExtraction, RenderedPage } from './page-document.js';

export interface ScrapeDeps {
  http: Engine;
  browser: Engine | null;
  content: ContentPool;
  /** Bounds of the HTML tree handled. */
  treeLimits?: TreeLimits;
  /** Pages fetched by engine and outcome, bytes fetched. */
  metrics?: Metrics;
}

/** One page with the native API's per-page options (shared by scrape and crawl). */
export interface PageRequest {
  url: URL;
  sourceUrl: string;
  options: ScrapeOptions;
  /** Also return every link and the pagination links (crawl, map). */
  discover?: boolean;
  /** Run CSS extraction on the page's tree in the content worker (extract). */
  cssExtract?: CssExtraction;
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

/** Validate, choose the engine, fetch within the deadline, build the requested formats. */
export async function fetchAndRender(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<RenderedPage> {
  const { options } = req;
  const { formats, headers, plan, screenshot } = checkPageOptions(options, deps.browser !== null);
  const render = async (engine: Engine, detectionReason: string | null): Promise<RenderedPage> => {
    const page = await fetchCounted(
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
      } as FetchRequest,
      deadline,
      deps.metrics,
    );
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
        limits: deps.treeLimits,
        cssExtract: req.cssExtract,
        maxDocumentPages: options.maxDocumentPages,
      },
      deadline,
    );
    deadline.check('formatting');
    if (actions) rendered.document.actions = actions;
    return rendered;
  };
  if (plan.engine === 'browser' && deps.browser) return render(deps.browser, plan.detectionReason);
  const viaHttp = await render(deps.http, plan.detectionReason);
  // engine "auto": a page that looks client-side rendered is rendered again in the browser.
  if ((options.engine ?? 'auto') !== 'auto' || !deps.browser) return viaHttp;
  if (viaHttp.clientRendered === null) {
    viaHttp.document.metadata.detectionReason = `static page (${viaHttp.document.metadata.wordCount} words of text): http engine`;
    return viaHttp;
  }
  return render(
    deps.browser,
    `client-side rendered page (${viaHttp.clientRendered}): re-rendered with the browser engine`,
  );
}
