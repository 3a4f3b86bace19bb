/**
 * When a page is fetched again: the transient answers, the backoff before a retry, and the target's
 * `Retry-After`. Shared by the scrape's retries (fetch-page.ts, within the request's deadline) and the
 * crawl's (jobs/crawl-run.ts, through the frontier), so both wait the same way.
 */

/** Answers a later attempt may get right: the target timed out, is rate limiting, or a gateway failed. */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/** Answers that say "slow down": they hold the host (Retry-After) and lower its rate (crawl/politeness.ts). */
export const THROTTLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** The first retry waits about this long; each further one twice as long as the one before. */
export const BACKOFF_BASE_MS = 250;
/** The longest backoff (a target's Retry-After may ask for longer, up to MAX_RETRY_AFTER_MS). */
export const BACKOFF_MAX_MS = 30_000;

/**
 * The wait before retry number `retry` (1 for the first): `min(BACKOFF_MAX_MS, BACKOFF_BASE_MS · 2^(retry−1))`
 * with equal jitter (half of it fixed, half drawn at random, so pages that failed together do not come back
 * together), and never shorter than the target's `Retry-After` (already capped by MAX_RETRY_AFTER_MS).
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
  const backoff = ceiling / 2 + random() * (ceiling / 2);
  return Math.round(Math.max(backoff, retryAfterMs ?? 0));
}

/**
 * A `Retry-After` header in ms from `now`: delay-seconds or an HTTP date (a date in the past is 0), capped at
 * `maxMs`; null when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, maxMs: number, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, maxMs);
}
