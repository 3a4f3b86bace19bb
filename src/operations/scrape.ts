import type { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import { withProfile } from '../jobs/profile-session.js';
import type { Profiles } from '../jobs/stores/browser-state/profile-store.js';
import { fetchAndRender } from '../pipeline/fetch-page.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody } from '../schemas/scrape.js';

/** The native scrape: one page through the pipeline, its document; with `profile`, from that browser state. */
export async function scrapePage(
  body: ScrapeBody,
  deadline: Deadline,
  deps: ScrapeDeps & { profiles?: Profiles },
): Promise<PageDocument> {
  const url = parseTargetUrl(body.url);
  return withProfile(deps.profiles, body.profile, async (cookies) => {
    const page = { url, sourceUrl: body.url, options: body };
    return (await fetchAndRender(page, deadline, cookies ? { ...deps, cookies } : deps)).document;
  });
}
