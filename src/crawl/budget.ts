/**
 * A crawl's `limit`, shared by whoever works the crawl: pages are claimed before they are fetched. Claims are
 * per URL, so a page fetched again (its first worker died) does not count twice.
 */
export interface CrawlBudget {
  /** Claims a page for `url`; false when the limit is reached. */
  take(url: string): Promise<boolean>;
  /** Gives a claim back (the page was not fetched after all). */
  giveBack(url: string): Promise<void>;
  /**
   * The page of `url` will not be fetched and was not taken (robots.txt refused it): a claim made for it
   * ahead of `take` goes back.
   */
  skip(url: string): Promise<void>;
}

/** The budget of a crawl worked by this process alone; a resumed crawl starts from what it already did. */
export class LocalBudget implements CrawlBudget {
  constructor(
    private readonly limit: number,
    private used = 0,
  ) {}

  take(_url: string): Promise<boolean> {
    if (this.used >= this.limit) return Promise.resolve(false);
    this.used++;
    return Promise.resolve(true);
  }

  giveBack(_url: string): Promise<void> {
    this.used = Math.max(0, this.used - 1);
    return Promise.resolve();
  }

  skip(_url: string): Promise<void> {
    return Promise.resolve(); // claims are made by `take` only
  }
}
