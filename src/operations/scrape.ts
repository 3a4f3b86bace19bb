import type { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import { fetchAndRender } from '../pipeline/fetch-page.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody } from '../schemas/scrape.js';

/** The native scrape: one page through the pipeline, its document. */
export async function scrapePage(
  body: ScrapeBody,
  deadline: Deadline,
  deps: ScrapeDeps,
): Promise<PageDocument> {
  const url = parseTargetUrl(body.url);
  return (await fetchAndRender({ url, sourceUrl: body.url, options: body }, deadline, deps)).document;
}
