import { AsyncLocalStorage } from 'node:async_hooks';

/** What a piece of work used, added to its tenant's day; absent counters add nothing. */
export interface UsageCounts {
  /** Pages fetched from the web that the target answered (any status). */
  pages?: number;
  /** Time a browser render or a browser session held a browser page, ms. */
  browserMs?: number;
  /** Documents parsed: PDF, Word, Excel, PowerPoint, fetched or uploaded. */
  documents?: number;
  /** Prompt and completion tokens of the server's LLM. */
  llmTokens?: number;
  /** Firecrawl's unit: a page document's credits by Firecrawl's rule (credits.ts), fetched or uploaded. */
  credits?: number;
}

/** Where usage is counted (src/tenants/usage.ts); the pipeline sees only this. */
export interface Meter {
  add(tenant: string, counts: UsageCounts): void;
}

/** What the page pipeline counts with, and asks before a page is fetched. */
export interface PageMeter extends Meter {
  /** LimitReachedError (429 until midnight UTC) when `tenant` fetched its pages of the day. */
  checkPages(tenant: string): Promise<void>;
}

/**
 * The tenant the work running now is metered to. Set where a service call or a job run starts (and again at
 * each page fetch, from the caller given there), read only by the counters deep inside that have no caller
 * of their own: the LLM client's tokens, the browser's render time. Never read to decide what a caller may
 * see or do: access is decided from the explicit `caller` of each call (docs/architecture.md).
 */
const current = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) metered to `tenant`. */
export const meteredAs = <T>(tenant: string, work: () => T): T => current.run(tenant, work);

/** The tenant the running work is metered to; undefined outside any service call or job run. */
export const meteredTenant = (): string | undefined => current.getStore();

/**
 * An async generator whose every step runs metered to `tenant`: what the generator starts on its first step
 * (a crawl's workers) carries the tenant for its whole life.
 */
export function meteredSteps<T>(tenant: string, steps: AsyncGenerator<T>): AsyncGenerator<T> {
  const wrapped: AsyncGenerator<T> = {
    next: (...args) => meteredAs(tenant, () => steps.next(...args)),
    return: (value) => meteredAs(tenant, () => steps.return(value)),
    throw: (err) => meteredAs(tenant, () => steps.throw(err)),
    [Symbol.asyncIterator]: () => wrapped,
    [Symbol.asyncDispose]: () => meteredAs(tenant, () => steps[Symbol.asyncDispose]()),
  };
  return wrapped;
}
