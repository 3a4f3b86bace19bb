import { BadRequestError, toAppError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import { mapWithLimit } from '../lib/map-limit.js';
import type { SearchBody, SearchResult } from '../schemas/search.js';
import type { SearchProvider } from '../search/types.js';
import type { ScrapeDeps } from './scrape.js';
import { checkPageOptions, fetchAndRender } from './scrape.js';

export interface SearchDeps extends ScrapeDeps {
  provider: SearchProvider;
}

/** Result pages scraped at once. */
const SCRAPE_CONCURRENCY = 5;
/** Budget of the provider call itself. */
const PROVIDER_TIMEOUT_MS = 15_000;

/**
 * Searches through the configured provider and, with scrapeResults, scrapes every hit concurrently
 * (bounded). A page that fails to scrape gets `content: null` and an `error`; the search still succeeds.
 */
export async function searchWeb(
  body: SearchBody,
  signal: AbortSignal,
  deps: SearchDeps,
): Promise<SearchResult[]> {
  const query = body.query.trim();
  if (query === '') throw new BadRequestError('query must not be empty');
  const options = body.scrapeOptions ?? {};
  const formats = options.formats ?? ['markdown'];
  if (body.scrapeResults) checkPageOptions({ formats }, deps.browser !== null);
  const hits = await deps.provider.search(
    { q: query, limit: body.limit ?? 10 },
    Deadline.after(PROVIDER_TIMEOUT_MS, signal),
  );
  const results: SearchResult[] = hits.map((hit) => ({ ...hit }));
  if (!body.scrapeResults) return results;
  await mapWithLimit(results, SCRAPE_CONCURRENCY, async (result) => {
    try {
      const url = new URL(result.url);
      const { document } = await fetchAndRender(
        {
          url,
          sourceUrl: result.url,
          options: { formats, onlyMainContent: options.onlyMainContent },
        },
        Deadline.after(options.timeout ?? 10000, signal),
        deps,
      );
      const { metadata, title: _title, description: _description, url: _url, ...content } = document;
      result.content = {
        ...content,
        metadata: {
          title: metadata.title,
          wordCount: metadata.wordCount,
          readingTime: metadata.readingTime,
        },
      };
    } catch (err) {
      result.content = null;
      result.error = toAppError(err).message;
    }
  });
  return results;
}
