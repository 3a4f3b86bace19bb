import { planEngine } from '../engines/plan.js';
import type { Engine } from '../engines/types.js';
import type { Deadline } from '../lib/deadline.js';
import { checkCallerHeaders } from '../lib/request-headers.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody, ScrapeOptions } from '../schemas/scrape.js';
import type { ContentPool } from './content-pool.js';
import type { RenderedPage } from './page-document.js';

export interface ScrapeDeps {
  http: Engine;
  browser: Engine | null;
  content: ContentPool;
}

/** One page with the per-page options of SPEC 4.1 (shared by scrape and crawl). */
export interface PageRequest {
  url: URL;
  sourceUrl: string;
  options: ScrapeOptions;
  /** Also return every link and the pagination links (crawl, map). */
  discover?: boolean;
}

/** Checks a page's options before anything is fetched, so bad input fails fast and once. */
export function checkPageOptions(options: ScrapeOptions, browserAvailable: boolean) {
  const formats = options.formats ?? ['markdown'];
  const headers = checkCallerHeaders(options.headers);
  const plan = planEngine(
    options.engine ?? 'auto',
    {
      screenshot: options.screenshot === true || formats.includes('screenshot'),
      waitFor: (options.waitFor ?? 0) > 0,
      waitForSelector: options.waitForSelector !== undefined,
      actions: (options.actions?.length ?? 0) > 0,
    },
    browserAvailable,
  );
  return { formats, headers, plan };
}

/** Validate, choose the engine, fetch within the deadline, build the requested formats. */
export async function fetchAndRender(
  req: PageRequest,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<RenderedPage> {
  const { options } = req;
  const { formats, headers, plan } = checkPageOptions(options, deps.browser !== null);
  const engine = plan.engine === 'browser' && deps.browser ? deps.browser : deps.http;
  const page = await engine.fetchPage(
    { url: req.url, headers, skipTlsVerification: options.skipTlsVerification ?? false },
    deadline,
  );
  deadline.check('fetch');
  const rendered = await deps.content.render(
    page,
    {
      sourceUrl: req.sourceUrl,
      formats,
      onlyMainContent: options.onlyMainContent ?? false,
      removeBase64Images: options.removeBase64Images ?? true,
      includeTags: options.includeTags,
      excludeTags: options.excludeTags,
      detectionReason: plan.detectionReason,
      discover: req.discover,
    },
    deadline,
  );
  deadline.check('formatting');
  return rendered;
}

export async function scrapePage(
  body: ScrapeBody,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<PageDocument> {
  const url = parseTargetUrl(body.url);
  return (await fetchAndRender({ url, sourceUrl: body.url, options: body }, deadline, deps)).document;
}
