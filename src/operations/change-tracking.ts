import { DIFF_TIMEOUT_MS, MAX_COMPARED_CHARS, markdownDiff } from '../content/markdown-diff.js';
import { normalizeUrl } from '../crawl/normalize.js';
import type { PageStore } from '../jobs/stores/page-store.js';
import type { PageDocument } from '../schemas/page.js';
import { DEFAULT_TENANT } from '../tenants/tenant.js';

/** What Firecrawl's `changeTracking` format asks for. */
export interface ChangeTrackingRequest {
  /** `git-diff`: a unified diff of the Markdown against the previous version. */
  modes: 'git-diff'[];
  /** Versions are kept per URL and tag: the same page tracked for two purposes does not mix them. */
  tag: string | null;
}

/** Firecrawl's `changeTracking` field of a document. */
export interface ChangeTracking {
  previousScrapeAt: string | null;
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  diff?: { text: string };
}

const GONE = new Set([404, 410]);

/**
 * Each tenant's versions apart: a page fetched with one tenant's headers or cookies, and its diff, is never
 * shown to another. `default`'s key has no tenant, so versions stored before tenants existed stay its own.
 */
const trackPrefix = (tenant: string): string => (tenant === DEFAULT_TENANT ? 'track:' : `track@${tenant}:`);

/** Whether a page's status says it is gone (a tracked page answering it is `removed`). */
export const isGone = (statusCode: number): boolean => GONE.has(statusCode);

/**
 * Compares a page's Markdown with the version `tenant` stored for its URL (and tag) at its previous scrape,
 * then stores this one. A page that now answers 404 or 410 after being seen is `removed` (and the last seen
 * version is kept). Answers the field and, when a diff was given up, why.
 */
export async function trackChanges(
  doc: PageDocument,
  sourceUrl: string,
  request: ChangeTrackingRequest,
  pages: PageStore,
  tenant: string,
): Promise<{ changeTracking: ChangeTracking; warning?: string }> {
  const key = `${trackPrefix(tenant)}${normalizeUrl(sourceUrl) ?? sourceUrl}|${request.tag ?? ''}`;
  const markdown = (doc.markdown ?? '').slice(0, MAX_COMPARED_CHARS);
  const previous = await pages.get(key);
  const now = Date.now();
  const previousScrapeAt = previous ? new Date(previous.at).toISOString() : null;
  if (previous && GONE.has(doc.metadata.statusCode)) {
    return { changeTracking: { previousScrapeAt, changeStatus: 'removed', visibility: 'visible' } };
  }
  await pages.put(key, markdown, now);
  if (!previous) return { changeTracking: { previousScrapeAt, changeStatus: 'new', visibility: 'visible' } };
  if (previous.body === markdown) {
    return { changeTracking: { previousScrapeAt, changeStatus: 'same', visibility: 'visible' } };
  }
  const changeTracking: ChangeTracking = { previousScrapeAt, changeStatus: 'changed', visibility: 'visible' };
  if (!request.modes.includes('git-diff')) return { changeTracking };
  const text = markdownDiff(previous.body, markdown);
  if (text === undefined) {
    return {
      changeTracking,
      warning: `changeTracking: the diff took longer than ${DIFF_TIMEOUT_MS} ms; left out`,
    };
  }
  changeTracking.diff = { text };
  return { changeTracking };
}
