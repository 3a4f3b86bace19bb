import { setImmediate } from 'node:timers/promises';
import type { Frontier, FrontierItem } from '../crawl/frontier.js';
import { isFinished } from '../crawl/frontier.js';
import { LocalBudget } from '../crawl/budget.js';
import type { CrawlBudget } from '../crawl/budget.js';
import { HostLimiter } from '../crawl/politeness.js';
import type { Politeness } from '../crawl/politeness.js';
import type { ResourceAccess } from '../crawl/fetch-port.js';
import { RobotsCache } from '../crawl/robots.js';
import type { RobotsRules } from '../crawl/robots.js';
import { CrawlScope } from '../crawl/scope.js';
import type { ScopeOptions } from '../crawl/scope.js';
import { sitemapUrls } from '../crawl/sitemap.js';
import { HostThrottle, throttleWarning } from '../crawl/throttle.js';
import type { SharedPace } from '../crawl/throttle.js';
import { HostPausedError, toAppError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import type { TargetAnswer } from '../pipeline/fetch-page.js';
import { fetchForCrawl } from '../pipeline/fetch-page.js';
import { retryDelayMs } from '../pipeline/retry.js';
import type { Caller } from '../tenants/tenant.js';
import { slotOf } from '../tenants/page-slots.js';

export type { CrawlDeps, CrawlSettings, CrawlSink, CrawlSpec, CrawlSummary } from './crawl-spec.js';
import type { CrawlDeps, CrawlSink, CrawlSpec, CrawlSummary } from './crawl-spec.js';

/** Longest stretch spent filtering discovered links before the event loop gets a turn. */
const SCOPE_SLICE_MS = 10;

/** Links remembered per run as out of scope (beyond it, the memory starts again). */
const OUT_OF_SCOPE_MEMORY = 4096;
/**
 * Characters of URLs remembered per run as offered to the frontier (a site's pages link to the same pages
 * again and again): a few MB at most; beyond it, the memory starts again.
 */
const OFFERED_MEMORY = 2_000_000;
const OUT_OF_SCOPE_REASON = 'outside the crawl scope (paths, backward or external link rules)';

/** What became of one frontier item: done (a document, an error, a skip) or put back for a retry. */
type ItemOutcome = 'done' | 'retry';

/**
 * One crawl's state and workers: its frontier, robots rules, host politeness and counters live here (not in
 * closures), so a job can be resumed from its stored frontier and counts. Stops when the frontier is
 * exhausted, `limit` pages were attempted, or `signal` aborts (cancel, shutdown, caller gone).
 */
export class CrawlRun {
  private readonly scope: CrawlScope;
  private readonly robots: RobotsCache;
  private readonly access: ResourceAccess;
  private readonly limiter: Politeness;
  private readonly budget: CrawlBudget;
  private readonly start: URL;
  private crawled: number;
  private errors: number;
  /** Set once the budget refused a page: workers stop taking URLs. */
  private exhausted = false;
  private paginationFollowed = 0;
  private lastReport = 0;
  private readonly resumed: boolean;
  private hitLimit = false;
  /** Why a limit of the crawl's tenant (its pages of the day) stopped it, once one did. */
  private limited: string | null = null;
  private readonly skipped = { robots: 0, outOfScope: 0, tooDeep: 0, hostPaused: 0 };
  /**
   * Each link found outside the scope, to the URL its drop names: a site's menu and footer come with every
   * page, and each is parsed and matched against the caller's patterns once (still counted at each drop).
   */
  private readonly droppedUrlByLink = new Map<string, string>();
  /**
   * URLs this run has put in the frontier (added, or there already): a frontier never forgets a URL, so
   * offering one again is a no-op.
   */
  private readonly offered = new Set<string>();
  private offeredLength = 0;
  /** Hosts whose robots.txt could not be read, so that none of their pages is fetched, and why. */
  private readonly robotsUnreachable = new Map<string, string>();
  /** What each host's answers asked of this crawl: fewer requests, a wait, a pause. */
  private readonly throttle: HostThrottle;
  /** The sticky key of proxy rotation: the job's id. */
  private readonly session: string | undefined;
  /** Whom the crawl's pages are fetched for (its job's owner), handed to every page's fetch. */
  private readonly caller: Caller | undefined;
  /** Workers waiting for URLs that pages in flight may still add; all are woken at once. */
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly spec: CrawlSpec,
    private readonly frontier: Frontier,
    private readonly sink: CrawlSink,
    private readonly deps: CrawlDeps,
    resumed: { crawled: number; errors: number } = { crawled: 0, errors: 0 },
    matchers: Pick<ScopeOptions, 'include' | 'exclude'> = {},
    /** Shared with other processes working the same crawl (Redis); this process's own by default. */
    shared: {
      budget?: CrawlBudget;
      politeness?: Politeness;
      pace?: SharedPace;
      checkStored?: boolean;
      session?: string;
      /** The tenant the crawl runs for: its job's owner, or the native crawl's caller. */
      caller?: Caller;
    } = {},
  ) {
    this.start = new URL(spec.seeds[0]!);
    const { allowBackwardLinks, allowExternalLinks, allowSubdomains, maxPathDepth } = spec.scope;
    this.scope = new CrawlScope(this.start, {
      allowBackwardLinks,
      allowExternalLinks,
      allowSubdomains,
      maxPathDepth,
      ...matchers,
    });
    // robots.txt and sitemaps are read as the pages are: their TLS setting, their proxies and session.
    const { skipTlsVerification, proxy } = spec.page;
    this.access = { skipTlsVerification, proxy, session: shared.session };
    this.robots = new RobotsCache(deps.fetchResource, deps.settings.robotsAgent, this.access);
    this.limiter = shared.politeness ?? new HostLimiter(deps.settings.hostConcurrency);
    this.throttle = new HostThrottle(deps.settings.hostConcurrency, Date.now, shared.pace ?? null);
    this.session = shared.session;
    this.caller = shared.caller;
    this.budget = shared.budget ?? new LocalBudget(spec.limit, resumed.crawled + resumed.errors);
    this.crawled = resumed.crawled;
    this.errors = resumed.errors;
    this.resumed = shared.checkStored ?? resumed.crawled + resumed.errors > 0;
  }

  private get timeout(): number {
    return this.spec.page.timeout ?? 30000;
  }

  /**
   * The hosts holding this crawl back, paused for it or whose robots.txt could not be read, as its status's
   * warning; null when none.
   */
  warning(): string | null {
    const throttled = throttleWarning(this.throttle.held(), this.throttle.paused());
    const robots = [...this.robotsUnreachable].map(([host, why]) => `${why} (no page of ${host} is fetched)`);
    const parts = [this.limited && `Stopped early: ${this.limited}`, throttled, ...robots];
    return parts.filter(Boolean).join('. ') || null;
  }

  private get maxRetries(): number {
    return this.spec.page.maxRetries ?? this.deps.retries.maxRetries;
  }

  private drop(url: string, reason: keyof CrawlSummary['skipped'], detail: string): void {
    this.skipped[reason]++;
    this.deps.log.debug({ op: 'crawl', url, reason: detail }, 'url dropped');
  }

  private notify(): void {
    for (const resolve of this.idle) resolve();
    this.idle.clear();
  }

  /**
   * Waits until this crawl adds or completes a URL, or 100 ms pass: a frontier shared with other processes
   * (Redis) can gain URLs without this process knowing.
   */
  private waitForWork(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.idle.delete(done);
        resolve();
      };
      const timer = setTimeout(done, 100);
      this.idle.add(done);
    });
  }

  /** Runs to the end; `fresh` seeds the frontier (a resumed job already has one). */
  async run(signal: AbortSignal, fresh: boolean): Promise<CrawlSummary> {
    if (fresh) await this.seed(signal);
    await this.reportTotal();
    const workers = Math.max(1, this.spec.concurrency);
    const failure: { error?: unknown } = {};
    const stopAll = new AbortController();
    const runSignal = AbortSignal.any([signal, stopAll.signal]);
    await Promise.all(
      Array.from({ length: workers }, () =>
        this.worker(runSignal).catch((error: unknown) => {
          // A failing worker (the store is gone) stops its siblings; the job fails with the reason.
          failure.error ??= error;
          stopAll.abort();
        }),
      ),
    );
    if (failure.error !== undefined) throw failure.error;
    await this.reportTotal(true);
    const stats = await this.frontier.stats();
    if (this.exhausted && stats.queued > 0) this.hitLimit = true;
    return {
      crawled: this.crawled,
      errors: this.errors,
      discovered: stats.discovered,
      stopped: this.hitLimit ? 'limit' : null,
      skipped: { ...this.skipped },
    };
  }

  /**
   * The start URLs and the sitemap's pages go into the frontier in one call, so a crash while the sitemap
   * is read leaves an empty frontier (seeded again on resume), never a start page without its sitemap.
   */
  private async seed(signal: AbortSignal): Promise<void> {
    const { spec } = this;
    const items =
      spec.sitemap === 'only' && spec.follow ? [] : await this.itemsFor(spec.seeds, 0, false, true);
    if (spec.follow && spec.sitemap !== 'skip') {
      const deadline = Deadline.after(this.timeout, signal);
      try {
        const rules = await this.robots.rulesFor(this.start, deadline);
        // An unreachable robots.txt disallows /sitemap.xml too.
        const guessed = rules.unreachable ? [] : [new URL('/sitemap.xml', this.start).href];
        const roots = [...rules.sitemaps, ...guessed];
        const pages = await sitemapUrls(
          roots,
          (url, d) => this.deps.fetchResource(url, d, this.access),
          (body, url, d) => this.deps.content.sitemap(body, url, d),
          { maxUrls: Math.min(spec.limit * 10, 50_000), maxSitemaps: 50, maxDepth: 3 },
          deadline,
        );
        const depth = spec.sitemap === 'only' ? 0 : (spec.sitemapDepth ?? 1);
        items.push(...(await this.itemsFor(pages, depth, false)));
      } finally {
        deadline.dispose();
      }
      // A site without a sitemap still gets its start page.
      if (items.length === 0) items.push(...(await this.itemsFor(spec.seeds, 0, false, true)));
    }
    await this.add(items, false);
  }

  /** Reports the expected page count at most every 250 ms (it costs a read of the frontier and a write). */
  private async reportTotal(force = false): Promise<void> {
    if (!this.sink.progress) return;
    const now = Date.now();
    if (!force && now - this.lastReport < 250) return;
    this.lastReport = now;
    const s = await this.frontier.stats();
    this.sink.progress(Math.min(this.spec.limit, s.discovered - this.skipped.robots));
  }

  private async enqueue(links: string[], depth: number, pagination: boolean): Promise<void> {
    await this.add(await this.itemsFor(links, depth, pagination), pagination);
  }

  private async add(items: FrontierItem[], pagination: boolean): Promise<void> {
    if (items.length === 0) return;
    const accepted = await this.frontier.add(items);
    for (const item of items) {
      if (this.offeredLength > OFFERED_MEMORY) {
        this.offered.clear();
        this.offeredLength = 0;
      }
      this.offered.add(item.url);
      this.offeredLength += item.url.length;
    }
    if (pagination) this.paginationFollowed += accepted;
    if (accepted > 0) this.notify();
  }

  /**
   * The links a page (or the sitemap) gives that this crawl follows; the others are counted and logged.
   * The caller's include/exclude patterns may cost milliseconds per URL, so a long list gives the event
   * loop a turn every SCOPE_SLICE_MS.
   */
  private async itemsFor(
    links: string[],
    depth: number,
    pagination: boolean,
    seeds = false,
  ): Promise<FrontierItem[]> {
    const { spec } = this;
    const items: FrontierItem[] = [];
    let paginationBudget = spec.maxPaginationPages - this.paginationFollowed;
    let sliceStart = performance.now();
    for (const link of links) {
      const dropped = seeds ? undefined : this.droppedUrlByLink.get(link);
      if (dropped !== undefined) {
        this.drop(dropped, 'outOfScope', OUT_OF_SCOPE_REASON);
        continue;
      }
      // In the frontier already (an offered URL is its own href): the item this link makes would be ignored.
      // Pagination spends its budget and a link too deep is counted, so those go on as if unseen.
      if (!seeds && !pagination && depth <= spec.maxDepth && this.offered.has(link)) continue;
      // Only a link not met before costs a parse and the caller's patterns: the clock is read before those.
      if (performance.now() - sliceStart > SCOPE_SLICE_MS) {
        await setImmediate();
        sliceStart = performance.now();
      }
      let url: URL;
      try {
        url = new URL(link);
      } catch {
        continue;
      }
      if (spec.ignoreQueryParameters) url.search = '';
      if (!seeds && !this.scope.allows(url)) {
        if (this.droppedUrlByLink.size >= OUT_OF_SCOPE_MEMORY) this.droppedUrlByLink.clear();
        // Keyed by the parser's own string where it is the link: a link can be a slice of its page's HTML
        // (content processed in this thread), which a key would keep alive.
        this.droppedUrlByLink.set(url.href === link ? url.href : link, url.href);
        this.drop(url.href, 'outOfScope', OUT_OF_SCOPE_REASON);
        continue;
      }
      if (pagination) {
        if (paginationBudget <= 0) break;
        paginationBudget--;
      } else if (depth > spec.maxDepth) {
        this.drop(url.href, 'tooDeep', `deeper than maxDepth ${spec.maxDepth}`);
        continue;
      }
      items.push({ url: url.href, depth, pagination });
    }
    return items;
  }

  private async worker(signal: AbortSignal): Promise<void> {
    // The item just crawled is completed with the next take: one round trip for both where the frontier is
    // remote. An item whose page was cut short by a cancel stays in flight for a resume to fetch again.
    let done: FrontierItem | undefined;
    // Past the limit, the pages already claimed that wait for a retry are still fetched.
    while (!signal.aborted && (!this.exhausted || (await this.frontier.stats()).delayed > 0)) {
      const item = await this.frontier.next(done);
      if (done) {
        done = undefined;
        this.notify();
      }
      if (!item) {
        if (isFinished(await this.frontier.stats())) return;
        await this.waitForWork(); // pages in flight may still add URLs
        continue;
      }
      const outcome = await this.crawlOne(item, signal);
      if (!signal.aborted && outcome === 'done') done = item;
    }
    if (done && !signal.aborted) await this.frontier.complete(done);
    this.notify();
  }

  private async rulesFor(url: URL, signal: AbortSignal): Promise<RobotsRules | null> {
    if (!this.spec.robots) return null;
    const deadline = Deadline.after(this.timeout, signal);
    try {
      return await this.robots.rulesFor(url, deadline);
    } finally {
      deadline.dispose();
    }
  }

  private async crawlOne(item: FrontierItem, signal: AbortSignal): Promise<ItemOutcome> {
    const { spec, deps } = this;
    const url = new URL(item.url);
    const before = item.attempts ?? 0;
    // A resumed (or shared) crawl: a page whose document was stored meanwhile is not fetched again.
    if ((this.resumed || item.retry) && (await this.sink.stored?.(item.url))) return 'done';
    if (await this.throttle.isPausedAnywhere(url.host)) {
      // Not claimed against the limit: the rest of the limit goes to hosts that answer.
      await this.budget.skip(item.url);
      this.skipped.hostPaused++;
      this.errors++;
      const paused = new HostPausedError(
        `Not fetched: ${url.host} is paused for this crawl (it refused most of its last pages with 403/429)`,
      );
      await this.sink.failed(url.href, paused, before);
      return 'done';
    }
    const rules = await this.rulesFor(url, signal);
    if (rules && !rules.isAllowed(url.href)) {
      await this.budget.skip(item.url);
      if (rules.unreachable) this.robotsUnreachable.set(url.host, rules.unreachable);
      this.drop(url.href, 'robots', rules.unreachable ?? 'robots.txt disallows it');
      await this.sink.robotsBlocked(url.href);
      return 'done';
    }
    // A page put back for a retry keeps the claim its first fetch made.
    if (before === 0 && !(await this.budget.take(item.url))) {
      this.exhausted = true;
      this.hitLimit = true;
      return 'done';
    }
    const robotsDelay = rules?.crawlDelayMs ?? null;
    const wanted =
      spec.delayMs === null
        ? (robotsDelay ?? deps.settings.minDelayMs)
        : Math.max(spec.delayMs, robotsDelay ?? 0);
    const host = url.host;
    const delay = Math.min(wanted, deps.settings.maxDelayMs) + this.throttle.addedDelayFor(host);
    // Told before the host's turn, which a held host makes wait: the status shows what holds it.
    if (this.sink.fetching) {
      const stats = await this.frontier.stats();
      this.sink.fetching(url.href, this.crawled, stats.queued, this.throttle.held());
    }
    // One of the tenant's page slots (MAX_SCRAPES_PER_TENANT), taken before the host's turn: a turn is a time
    // (Crawl-delay), which a wait for a slot after it would spoil.
    const slot = await slotOf(this.deps.pageSlots, this.caller?.tenant, signal);
    if (!slot || !(await this.limiter.acquire(host, delay, signal, this.throttle.inFlightFor(host)))) {
      slot?.release();
      if (before === 0) await this.budget.giveBack(item.url);
      return 'done';
    }
    const retryLeft = before < this.maxRetries;
    try {
      const deadline = Deadline.after(this.timeout, signal);
      const observe = (answer: TargetAnswer): void => this.answered(host, answer);
      const rendered = await fetchForCrawl(
        {
          url,
          sourceUrl: item.url,
          options: spec.page,
          discover: spec.follow,
          pagination: spec.follow && spec.maxPaginationPages > 0,
          facts: spec.pageFacts ?? true,
          session: this.session,
          caller: this.caller,
        },
        deadline,
        deps,
        { before, retryLeft, observe },
      ).finally(() => deadline.dispose());
      if (signal.aborted) return 'done';
      if ('retryLater' in rendered) {
        await this.retryLater(item, rendered.retryLater.retryAfterMs, `HTTP ${rendered.retryLater.status}`);
        return 'retry';
      }
      this.settled(host, rendered.document.metadata.statusCode);
      this.crawled++;
      // Links go into the frontier before the document is stored: a stored document means its links are
      // stored too (writes commit in order), so a resumed crawl can skip a page whose document it has.
      if (spec.follow && spec.sitemap !== 'only') {
        await this.enqueue(rendered.links, item.depth + 1, false); // links past maxDepth are counted as skipped
        if (spec.maxPaginationPages > 0) await this.enqueue(rendered.pagination, item.depth, true);
      }
      await this.sink.document(item, rendered.document, rendered.links);
      if (spec.follow) await this.reportTotal();
      return 'done';
    } catch (err) {
      if (signal.aborted) return 'done';
      const e = toAppError(err);
      if (e.code === 'STORE_UNAVAILABLE') throw e;
      // A limit of the tenant (its pages of the day): no more URLs are taken; pages past the check finish.
      if (e.code === 'LIMIT_REACHED') [this.limited, this.exhausted] = [e.message, true];
      if (e.retryable && retryLeft) {
        await this.retryLater(item, null, e.code);
        return 'retry';
      }
      this.settled(host, null);
      this.errors++;
      deps.log.debug({ op: 'crawl', url: url.href, reason: e.code, attempts: before + 1 }, 'page failed');
      await this.sink.failed(url.href, e, before + 1);
      return 'done';
    } finally {
      this.limiter.release(host);
      slot.release();
    }
  }

  /** One answer of a host: its throttle learns from it, and a Retry-After holds the host for everyone. */
  private answered(host: string, answer: TargetAnswer): void {
    const hold = this.throttle.answered(host, answer.status, answer.retryAfterMs);
    if (hold === null) return;
    this.deps.log.info({ op: 'crawl', host, holdMs: hold, status: answer.status }, 'host throttled');
    this.limiter.hold(host, hold).catch((err: unknown) => {
      this.deps.log.warn({ op: 'crawl', host, err }, 'holding a host failed');
    });
  }

  /** A page's final outcome, which may pause its host for the rest of the crawl. */
  private settled(host: string, status: number | null): void {
    if (this.throttle.settled(host, status)) {
      this.deps.log.warn({ op: 'crawl', host }, 'host paused: it refused most of the last pages');
    }
  }

  /** Puts a page that failed transiently back in the frontier, due after its backoff. */
  private async retryLater(item: FrontierItem, retryAfterMs: number | null, reason: string): Promise<void> {
    const attempt = (item.attempts ?? 0) + 1;
    const delayMs = retryDelayMs(attempt, retryAfterMs);
    this.deps.log.debug({ op: 'crawl', url: item.url, reason, attempt, delayMs }, 'page retried later');
    await this.frontier.retryLater(item, delayMs);
    this.notify();
  }
}
