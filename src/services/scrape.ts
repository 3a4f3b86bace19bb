import { planEngine } from '../engines/plan.js';
import type { Engine } from '../engines/types.js';
import type { Deadline } from '../lib/deadline.js';
import { checkCallerHeaders } from '../lib/request-headers.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody } from '../schemas/scrape.js';
import type { ContentPool } from './content-pool.js';

export interface ScrapeDeps {
  http: Engine;
  browser: Engine | null;
  content: ContentPool;
}

/** One page: validate, choose the engine, fetch within the deadline, build the requested formats. */
export async function scrapePage(
  body: ScrapeBody,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<PageDocument> {
  const url = parseTargetUrl(body.url);
  const headers = checkCallerHeaders(body.headers);
  const formats = body.formats ?? ['markdown'];
  const plan = planEngine(
    body.engine ?? 'auto',
    {
      screenshot: body.screenshot === true || formats.includes('screenshot'),
      waitFor: (body.waitFor ?? 0) > 0,
      waitForSelector: body.waitForSelector !== undefined,
      actions: (body.actions?.length ?? 0) > 0,
    },
    deps.browser !== null,
  );
  const engine = plan.engine === 'browser' && deps.browser ? deps.browser : deps.http;
  const page = await engine.fetchPage(
    { url, headers, skipTlsVerification: body.skipTlsVerification ?? false },
    deadline,
  );
  deadline.check('fetch');
  const document = await deps.content.render(
    page,
    {
      sourceUrl: body.url,
      formats,
      onlyMainContent: body.onlyMainContent ?? false,
      removeBase64Images: body.removeBase64Images ?? true,
      includeTags: body.includeTags,
      excludeTags: body.excludeTags,
      detectionReason: plan.detectionReason,
    },
    deadline,
  );
  deadline.check('formatting');
  return document;
}
