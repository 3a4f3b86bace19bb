/**
 * What reopens a scrape's page for `interact`: its URL and the options that shape how the browser loads it
 * (never the page's content, never a cookie's value), and the session an interact opened on it. Times in ms
 * since the epoch.
 */
export interface ScrapeOrigin {
  /** The scrape's `metadata.scrapeId`. */
  scrapeId: string;
  /**
   * The tenant that scraped it: the only one (with operators) that can reopen it; the page's profile is its.
   * Absent on records written before tenants: `default`'s.
   */
  owner?: string;
  url: string;
  options: ReopenOptions;
  createdAt: number;
  /** When the store may drop the record. */
  keepUntil: number;
  /** The session an interact opened on the page, to continue it; null before the first. */
  sessionId: string | null;
}

/** A scrape's options that matter to loading its page again in a browser. */
export interface ReopenOptions {
  /** Request headers, without `Cookie` (a profile carries cookies, by name). */
  headers?: Record<string, string>;
  mobile?: boolean;
  /** Milliseconds to wait after the page loaded. */
  waitFor?: number;
  skipTlsVerification?: boolean;
  proxy?: string;
  profile?: { name: string; saveChanges?: boolean };
}

/**
 * The scrapes an interact can reopen, beside the jobs: the SQLite file, Redis, or memory. Contract (one suite
 * runs against each adapter): `put` replaces what the scrape id held; `get` answers the newest `put`, or null
 * (also once `keepUntil` is past); `purge(now)` drops records whose `keepUntil` is past (Redis lets them
 * expire on its own).
 */
export interface ScrapeOriginStore {
  get(scrapeId: string): Promise<ScrapeOrigin | null>;
  put(origin: ScrapeOrigin): Promise<void>;
  purge(now: number): Promise<number>;
}

/** A process's own scrape origins (tests, and a process without its job store's file). */
export class MemoryScrapeOriginStore implements ScrapeOriginStore {
  private readonly origins = new Map<string, ScrapeOrigin>();
  private purgedAt = 0;

  get(scrapeId: string): Promise<ScrapeOrigin | null> {
    const origin = this.origins.get(scrapeId);
    return Promise.resolve(origin && origin.keepUntil > Date.now() ? structuredClone(origin) : null);
  }

  put(origin: ScrapeOrigin): Promise<void> {
    this.origins.set(origin.scrapeId, structuredClone(origin));
    // Records past their keepUntil go at the next write a while later: a process's map stays bounded.
    if (origin.createdAt - this.purgedAt >= 600_000) {
      this.purgedAt = origin.createdAt;
      void this.purge(origin.createdAt);
    }
    return Promise.resolve();
  }

  purge(now: number): Promise<number> {
    let dropped = 0;
    for (const [id, origin] of this.origins) {
      if (origin.keepUntil > now) continue;
      this.origins.delete(id);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}
