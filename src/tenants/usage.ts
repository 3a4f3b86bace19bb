import { LimitReachedError, toAppError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import {
  USAGE_FIELDS,
  USAGE_KEEP_DAYS,
  addDays,
  addsAnything,
  byTenantThenDay,
  dayStart,
  fullCounts,
  utcDay,
} from '../jobs/stores/usage-state/usage-store.js';
import type { UsageAdd, UsageDay, UsageStore } from '../jobs/stores/usage-state/usage-store.js';
import type { PageMeter, UsageCounts } from './metering.js';
import { limitText } from './tenant.js';
import type { LimitsOf, TenantLimits } from './tenant.js';

/** What was added is written to the store in one batch this often, and once more at close. */
const FLUSH_MS = 1000;
/** A tenant's figures of the day, read from the store, serve the limit checks this long. */
const FRESH_MS = 1000;
/** A store that keeps failing is logged again at most this often. */
const FAILURE_LOG_MS = 60_000;

export interface UsageDeps {
  store: UsageStore;
  limits: LimitsOf;
  log: Logger;
  /** Hears every add as it happens (the Prometheus counters of this process). */
  onAdd?: (tenant: string, counts: UsageCounts) => void;
  /** The clock (tests move it past midnight). */
  now?: () => number;
}

/** A tenant's counters of one day as a limit check reads them. */
interface Figure {
  day: string;
  counts: Required<UsageCounts>;
  readAt: number;
}

/**
 * What each tenant used, per UTC day: pages, browser time, documents, LLM tokens, credits. `add` counts in
 * memory at once (never waits, never fails) and a timer writes the sums to the UsageStore every FLUSH_MS in
 * one batch; a batch the store refuses goes back into what is pending and is written with the next one, so
 * nothing is lost while the process lives (a crash loses at most the last second). Reads (`days`, `today`)
 * answer the store plus what is still pending; a read and a flush never overlap, so each add is counted once.
 *
 * The daily limits (`checkPages`, `checkTokens`) read a tenant's day from the store at most every FRESH_MS and
 * add this process's own adds since, so they cost no store round trip per page. What they can miss: other
 * processes' adds of the last FLUSH_MS + FRESH_MS (about two seconds), and the pages already past the check.
 */
export class Usage implements PageMeter {
  private pending = new Map<string, UsageAdd>();
  /** The store operation running (a flush or a read): the next one waits for it. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly figures = new Map<string, Figure>();
  private readonly reading = new Map<string, Promise<Figure>>();
  private failingSince: number | null = null;
  private failureLoggedAt = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly deps: UsageDeps) {
    this.now = deps.now ?? Date.now;
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** A tenant's limits (the daily ones are checked here). */
  limitsOf(tenant: string): TenantLimits {
    return this.deps.limits(tenant);
  }

  add(tenant: string, counts: UsageCounts): void {
    if (!addsAnything(counts)) return;
    const day = utcDay(this.now());
    const key = `${day} ${tenant}`;
    const held = this.pending.get(key) ?? { tenant, day, counts: {} };
    for (const field of USAGE_FIELDS) held.counts[field] = (held.counts[field] ?? 0) + (counts[field] ?? 0);
    this.pending.set(key, held);
    const figure = this.figures.get(tenant);
    if (figure?.day === day) for (const field of USAGE_FIELDS) figure.counts[field] += counts[field] ?? 0;
    this.deps.onAdd?.(tenant, counts);
  }

  /** The days in `[from, to]` with usage, of `tenant` or of every tenant, flushed or not. */
  days(from: string, to: string, tenant?: string): Promise<UsageDay[]> {
    return this.exclusive(async () =>
      this.withPending(await this.deps.store.days(from, to, tenant), from, to, tenant),
    );
  }

  /** `tenant`'s counters of today (UTC), zero when it used nothing. */
  async today(tenant: string): Promise<UsageDay> {
    const day = utcDay(this.now());
    return (await this.days(day, day, tenant))[0] ?? { tenant, day, ...fullCounts({}) };
  }

  /** LimitReachedError (429 until midnight UTC) when `tenant` fetched its pages of the day (`pagesPerDay`). */
  async checkPages(tenant: string): Promise<void> {
    const limits = this.deps.limits(tenant);
    if (limits.pagesPerDay === 0) return;
    const used = (await this.figure(tenant)).counts.pages;
    if (used >= limits.pagesPerDay)
      throw this.limitError(
        `Tenant ${tenant} has fetched ${used} pages today`,
        limitText('pagesPerDay', limits),
      );
  }

  /** LimitReachedError (429 until midnight UTC) when `tenant` spent its LLM tokens of the day. */
  async checkTokens(tenant: string): Promise<void> {
    const limits = this.deps.limits(tenant);
    if (limits.llmTokensPerDay === 0) return;
    const used = (await this.figure(tenant)).counts.llmTokens;
    if (used >= limits.llmTokensPerDay)
      throw this.limitError(
        `Tenant ${tenant} has used ${used} LLM tokens today`,
        limitText('llmTokensPerDay', limits),
      );
  }

  /**
   * Before a job of `owner` is stored: every job fetches pages; an agent run and an extract are LLM work too.
   * A monitor's check is not refused here (its schedule would fail every tick): its pages are, one by one.
   */
  async admitJob(owner: string, kind: string): Promise<void> {
    if (kind === 'monitor_check') return;
    await this.checkPages(owner);
    if (kind === 'agent' || kind === 'extract') await this.checkTokens(owner);
  }

  /** Drops the days older than USAGE_KEEP_DAYS (the job engine's purge calls it). */
  purge(): Promise<number> {
    return this.exclusive(() => this.deps.store.purge(addDays(utcDay(this.now()), -USAGE_KEEP_DAYS)));
  }

  /** Writes what is pending: once a second, and at close. */
  flush(): Promise<void> {
    return this.exclusive(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.deps.store.add(batch);
        if (this.failingSince !== null) {
          this.deps.log.info(
            { failedMs: this.now() - this.failingSince },
            'usage written to the store again',
          );
          this.failingSince = null;
        }
      } catch (err) {
        for (const add of batch) this.putBack(add);
        this.failed(err);
      }
    });
  }

  /** Stops the timer and writes what is pending; what the store still refuses then is logged as lost. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.pending.size > 0)
      this.deps.log.error(
        { lost: [...this.pending.values()] },
        'usage not written before the service stopped',
      );
  }

  private failed(err: unknown): void {
    const now = this.now();
    this.failingSince ??= now;
    if (now - this.failureLoggedAt < FAILURE_LOG_MS) return;
    this.failureLoggedAt = now;
    this.deps.log.warn(
      { reason: toAppError(err).message, pending: this.pending.size },
      'usage could not be written to the store: kept in memory and tried again every second',
    );
  }

  private putBack(add: UsageAdd): void {
    const key = `${add.day} ${add.tenant}`;
    const held = this.pending.get(key);
    if (!held) return void this.pending.set(key, add);
    for (const field of USAGE_FIELDS)
      held.counts[field] = (held.counts[field] ?? 0) + (add.counts[field] ?? 0);
  }

  /** The store's days with what is pending added (called with the store quiet: nothing in flight). */
  private withPending(stored: UsageDay[], from: string, to: string, tenant?: string): UsageDay[] {
    const byKey = new Map(stored.map((d) => [`${d.day} ${d.tenant}`, { ...d }]));
    for (const [key, add] of this.pending) {
      if (add.day < from || add.day > to || (tenant !== undefined && add.tenant !== tenant)) continue;
      const d = byKey.get(key) ?? { tenant: add.tenant, day: add.day, ...fullCounts({}) };
      for (const field of USAGE_FIELDS) d[field] += Math.round(add.counts[field] ?? 0);
      byKey.set(key, d);
    }
    return [...byKey.values()].sort(byTenantThenDay);
  }

  /** Today's figures of `tenant` for a limit check: read again once older than FRESH_MS. */
  private figure(tenant: string): Promise<Figure> {
    const day = utcDay(this.now());
    const held = this.figures.get(tenant);
    if (held && held.day === day && this.now() - held.readAt < FRESH_MS) return Promise.resolve(held);
    let reading = this.reading.get(tenant);
    if (!reading) {
      reading = this.exclusive(async () => {
        let stored: UsageDay[];
        try {
          stored = await this.deps.store.days(day, day, tenant);
        } catch {
          // The store away: the checks go on with what this process counted rather than refusing every page.
          if (held?.day === day) return Object.assign(held, { readAt: this.now() });
          stored = [];
        }
        const [d] = this.withPending(stored, day, day, tenant);
        const figure = { day, counts: fullCounts(d ?? {}), readAt: this.now() };
        this.figures.set(tenant, figure);
        return figure;
      }).finally(() => this.reading.delete(tenant));
      this.reading.set(tenant, reading);
    }
    return reading;
  }

  private limitError(used: string, limit: string): LimitReachedError {
    const now = this.now();
    const midnight = dayStart(addDays(utcDay(now), 1));
    return new LimitReachedError(`${used} (UTC), the most it may a day (${limit}): more from 00:00 UTC`, {
      retryAfterSeconds: Math.max(1, Math.ceil((midnight - now) / 1000)),
      // Not retried within a crawl: the limit frees at midnight, not in a backoff's seconds.
      permanent: true,
    });
  }

  /** Runs `work` after the store operation in flight, so that reads and flushes never overlap. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
