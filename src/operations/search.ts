import type { AppError } from '../errors.js';
import { BadRequestError, toAppError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import { mapWithLimit } from '../lib/map-limit.js';
import type { PageDocument } from '../schemas/page.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import type { SearchBody, SearchResult } from '../schemas/search.js';
import type { SearchHit, SearchProvider } from '../search/types.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import { checkPageOptions, fetchAndRender } from '../pipeline/fetch-page.js';

export interface SearchDeps extends ScrapeDeps {
  provider: SearchProvider;
}

/** Result pages scraped at once. */
const SCRAPE_CONCURRENCY = 5;
/** Budget of the provider call itself. */
const PROVIDER_TIMEOUT_MS = 15_000;

/** A search hit and, when its page was asked for, the page or why it could not be had. */
export interface SearchPage {
  hit: SearchHit;
  document?: PageDocument;
  error?: AppError;
}

/**
 * Searches through the configured provider and, given page options, scrapes every hit concurrently
 * (bounded), each within `pageTimeoutMs`. A page that fails carries its error; the search still succeeds.
 */
export async function searchPages(
  query: string,
  limit: number,
  page: ScrapeOptions | null,
  signal: AbortSignal,
  deps: SearchDeps,
): Promise<SearchPage[]> {
  const q = query.trim();
  if (q === '') throw new BadRequestError('query must not be empty');
  if (page) checkPageOptions(page, deps.browser !== null);
  const hits = await deps.provider.search({ q, limit }, Deadline.after(PROVIDER_TIMEOUT_MS, signal));
  const pages: SearchPage[] = hits.map((hit) => ({ hit }));
  if (!page) return pages;
  await mapWithLimit(pages, SCRAPE_CONCURRENCY, async (result) => {
    try {
      const url = new URL(result.hit.url);
      const deadline = Deadline.after(page.timeout ?? 10000, signal);
      try {
        result.document = (
          await fetchAndRender({ url, sourceUrl: result.hit.url, options: page }, deadline, deps)
        ).document;
      } finally {
        deadline.dispose();
      }
    } catch (err) {
      result.error = toAppError(err);
    }
  });
  return pages;
}

/** The native search: hits, and with scrapeResults each page's content (or `content: null` and an `error`). */
export async function searchWeb(
  body: SearchBody,
  signal: AbortSignal,
  deps: SearchDeps,
): Promise<SearchResult[]> {
  const options = body.scrapeOptions ?? {};
  const page = body.scrapeResults
    ? {
        formats: options.formats ?? ['markdown'],
        onlyMainContent: options.onlyMainContent,
        timeout: options.timeout,
      }
    : null;
  const pages = await searchPages(body.query, body.limit ?? 10, page, signal, deps);
  return pages.map(({ hit, document, error }): SearchResult => {
    if (!page) return { ...hit };
    if (!document) return { ...hit, content: null, error: error?.message ?? 'not scraped' };
    const { metadata, title: _title, description: _description, url: _url, ...content } = document;
    return {
      ...hit,
      content: {
        ...content,
        metadata: {
          title: metadata.title,
          wordCount: metadata.wordCount,
          readingTime: metadata.readingTime,
        },
      },
    };
  });
}
