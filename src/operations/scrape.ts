import type { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import { withProfile } from '../jobs/profile-session.js';
import type { Profiles } from '../jobs/stores/browser-state/profile-store.js';
import { fetchAndRender } from '../pipeline/fetch-page.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeBody } from '../schemas/scrape.js';
import type { Caller } from '../tenants/tenant.js';

/**
 * The native scrape: one page through the pipeline, its document; with `profile`, from that browser state of
 * the caller's tenant (saved back as the tenant's with `saveChanges`).
 */
export async function scrapePage(
  body: ScrapeBody,
  deadline: Deadline,
  deps: ScrapeDeps & { profiles?: Profiles },
  caller: Caller,
): Promise<PageDocument> {
  const url = parseTargetUrl(body.url);
  return withProfile(deps.profiles, body.profile, caller.tenant, async (cookies) => {
    const page = { url, sourceUrl: body.url, options: body, caller };
    return (await fetchAndRender(page, deadline, cookies ? { ...deps, cookies } : deps)).document;
  });
}
