/** One URL waiting to be crawled. */
export interface FrontierItem {
  url: string;
  depth: number;
  /** Reached through a pagination link (does not count against the depth limit). */
  pagination: boolean;
  /**
   * Handed out before to a worker that did not complete it (it died): its page may be stored already. Set by
   * shared frontiers (Redis); a resumed embedded crawl checks every item instead.
   */
  retry?: boolean;
  /**
   * Fetches of this URL that failed transiently and were put back with `retryLater` (absent or 0 for an item
   * never put back); its next fetch is attempt number `attempts + 1`.
   */
  attempts?: number;
}

export interface FrontierStats {
  /** Items waiting (not in flight), those waiting for a retry's time included. */
  queued: number;
  /** Of the queued items, those put back by `retryLater` whose time has not come yet. */
  delayed: number;
  /** Items handed out by `next` and not yet completed. */
  inFlight: number;
  /** Distinct URLs ever accepted. */
  discovered: number;
}

/**
 * The crawl frontier of one job. Asynchronous, so that an adapter may live in another process (SQLite
 * file, Redis). Lifecycle contract, kept by every adapter and checked by one contract suite:
 * - `add` dedups by normalized URL: a URL is accepted at most once per job, whether it is still queued,
 *   in flight or done; items that are not http(s) URLs are refused.
 * - every item returned by `next` is in flight until it is passed to `complete`, even when fetching it
 *   failed; a crawl is finished only when nothing is queued and nothing is in flight.
 * - ordering is breadth-first: items come out in the order they were accepted.
 * - writes are ordered: a durable adapter never keeps a later write (an item completed) while losing an
 *   earlier one (the links its page added), so nothing discovered is lost.
 * - durable adapters keep in-flight items across a crash: `requeueInFlight` (called when a job resumes)
 *   puts them back in the queue, so an item is never lost, at worst fetched twice.
 * - an in-flight item put back with `retryLater` is no longer in flight but still queued (a crawl is not
 *   finished while a retry waits); `next` returns it no earlier than its delay, with `attempts` one more, and
 *   ahead of the items accepted after it once its time has come. Durable adapters keep it across a crash.
 */
export interface Frontier {
  /** Accepts the items not seen before; answers how many were accepted. */
  add(items: readonly FrontierItem[]): Promise<number>;
  /**
   * The next queued item, now in flight; undefined when nothing is queued. `done`, when given, is completed
   * first (as `complete` would), in the same round trip where the adapter can.
   */
  next(done?: FrontierItem): Promise<FrontierItem | undefined>;
  complete(item: FrontierItem): Promise<void>;
  /**
   * Puts an in-flight item back to be fetched again in `delayMs` or later (a transient failure's backoff),
   * counted as one more attempt. The caller does not complete it.
   */
  retryLater(item: FrontierItem, delayMs: number): Promise<void>;
  stats(): Promise<FrontierStats>;
  /** Puts every in-flight item back in the queue; answers how many. */
  requeueInFlight(): Promise<number>;
}

export const isFinished = (s: FrontierStats): boolean => s.queued === 0 && s.inFlight === 0;
