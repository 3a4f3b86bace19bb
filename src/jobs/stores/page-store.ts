/** A page as stored: its body (JSON or Markdown, as the caller chose) and when it was fetched. */
export interface StoredPage {
  body: string;
  at: number;
}

/**
 * The last scrape of a page, by key: Firecrawl's cache (`maxAge`, `storeInCache`) and the previous version that
 * `changeTracking` compares against. Lives beside the jobs (SQLite file, Redis, or memory), with the same
 * adapters. Contract (one suite runs against each adapter):
 * - `put` replaces what the key held; `get` answers the newest `put`, or null;
 * - `purge(before)` drops pages stored before that time (Redis lets them expire on its own).
 */
export interface PageStore {
  get(key: string): Promise<StoredPage | null>;
  put(key: string, body: string, at: number): Promise<void>;
  /** Drops pages fetched before `before`; answers how many. */
  purge(before: number): Promise<number>;
}

/** A process's own page store (no DATA_DIR): bounded, the oldest entries go first. */
export class MemoryPageStore implements PageStore {
  private readonly pages = new Map<string, StoredPage>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string): Promise<StoredPage | null> {
    return Promise.resolve(this.pages.get(key) ?? null);
  }

  put(key: string, body: string, at: number): Promise<void> {
    this.pages.delete(key); // re-inserted last: insertion order is age order
    this.pages.set(key, { body, at });
    while (this.pages.size > this.maxEntries) this.pages.delete(this.pages.keys().next().value!);
    return Promise.resolve();
  }

  purge(before: number): Promise<number> {
    let dropped = 0;
    for (const [key, page] of this.pages) {
      if (page.at >= before) continue;
      this.pages.delete(key);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}
