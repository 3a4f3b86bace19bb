import { createTwoFilesPatch } from 'diff';
import { normalizeUrl } from '../crawl/normalize.js';
import type { PageStore } from '../jobs/stores/page-store.js';
import type { PageDocument } from '../schemas/page.js';

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

/** Markdown compared at most (characters): a diff costs time in the product of the sizes' differences. */
const MAX_COMPARED_CHARS = 500_000;
/** A diff that takes longer is given up (it runs on the main thread); the status is still answered. */
const DIFF_TIMEOUT_MS = 500;

const GONE = new Set([404, 410]);

/** Whether a page's status says it is gone (a tracked page answering it is `removed`). */
export const isGone = (statusCode: number): boolean => GONE.has(statusCode);

/**
 * A unified diff of two versions of a page's Markdown (each bounded to MAX_COMPARED_CHARS), or undefined when
 * it took longer than DIFF_TIMEOUT_MS (it runs on the main thread: the status is still answered).
 */
export function markdownDiff(previous: string, current: string): string | undefined {
  return createTwoFilesPatch(
    'previous',
    'current',
    previous.slice(0, MAX_COMPARED_CHARS),
    current.slice(0, MAX_COMPARED_CHARS),
    undefined,
    undefined,
    { timeout: DIFF_TIMEOUT_MS },
  );
}

/** The Markdown a page is compared on: bounded as diffs are. */
export const comparedMarkdown = (markdown: string | undefined): string =>
  (markdown ?? '').slice(0, MAX_COMPARED_CHARS);

/**
 * Compares a page's Markdown with the version stored for its URL (and tag) at the previous scrape, then stores
 * this one. A page that now answers 404 or 410 after being seen is `removed` (and the last seen version is
 * kept). Answers the field and, when a diff was given up, why.
 */
export async function trackChanges(
  doc: PageDocument,
  sourceUrl: string,
  request: ChangeTrackingRequest,
  pages: PageStore,
): Promise<{ changeTracking: ChangeTracking; warning?: string }> {
  const key = `track:${normalizeUrl(sourceUrl) ?? sourceUrl}|${request.tag ?? ''}`;
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
