/** One URL waiting to be crawled. */
export interface FrontierItem {
  url: string;
  depth: number;
  /** Reached through a pagination link (does not count against maxDepth). */
  pagination: boolean;
}

/**
 * The crawl frontier. Lifecycle contract:
 * - `add` dedups by normalized URL: a URL is accepted at most once per crawl, whether it is still
 *   queued, in flight or done.
 * - every item returned by `next` is in flight until it is passed to `complete`, even when fetching it
 *   failed; a crawl is finished only when the queue is empty and nothing is in flight.
 * - ordering is breadth-first: items come out in the order they were added.
 * Implementations other than the in-memory one (e.g. Redis for several workers) keep this contract.
 */
export interface Frontier {
  /** False when the URL was seen before (or is not an http(s) URL). */
  add(item: FrontierItem): boolean;
  /** The next queued item, now in flight; undefined when the queue is empty. */
  next(): FrontierItem | undefined;
  complete(item: FrontierItem): void;
  /** Items waiting (not in flight). */
  readonly queued: number;
  /** Distinct URLs ever accepted. */
  readonly discovered: number;
  /** True only when the queue is empty and nothing is in flight. */
  readonly finished: boolean;
}
