import { LimitReachedError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { Gate } from '../lib/gate.js';
import { limitText } from './tenant.js';
import type { LimitsOf, TenantLimits } from './tenant.js';

/** One of a tenant's page slots, held while one page is fetched and converted; released once. */
export interface PageSlot {
  release(): void;
}

/**
 * The pages each tenant has in flight (a scrape, a crawl's or a batch's page, an extract's or a search's page,
 * the browser renders among them): at most its `limits.scrapes` at once. A page past the limit waits for one of
 * its tenant's slots, in arrival order; other tenants' pages never wait for them. LocalPageSlots counts this
 * process's pages; RedisPageSlots (REDIS_URL) every process's.
 */
export interface PageSlots {
  /** The limits a tenant's slots are counted against. */
  readonly limits: LimitsOf;
  /**
   * Waits for one of `tenant`'s slots; null when `signal` aborts first (nothing is held then). Throws
   * StoreUnavailableError when the count cannot be read (Redis away).
   */
  take(tenant: string, signal: AbortSignal): Promise<PageSlot | null>;
  /** About how long one of the tenant's pages holds its slot, ms (what a 429's Retry-After says). */
  typicalHoldMs(tenant: string): number;
  close(): Promise<void>;
}

/** The slot of a page counted to no tenant. */
const UNCOUNTED: PageSlot = { release: () => undefined };

/**
 * One of `tenant`'s slots, waited for until `signal` aborts (null then); an uncounted one when there are no
 * slots to count (a tool with no tenant, a test's bare pipeline).
 */
export async function slotOf(
  slots: PageSlots | undefined,
  tenant: string | undefined,
  signal: AbortSignal,
): Promise<PageSlot | null> {
  return slots && tenant !== undefined ? slots.take(tenant, signal) : UNCOUNTED;
}

/** What a slot is held for before any page of a tenant was seen. */
const FIRST_GUESS_MS = 1000;
/** Weight of the newest hold in the running mean. */
const NEWEST_WEIGHT = 0.2;

/** A running mean of how long each tenant's pages hold their slots. */
export class HoldTimes {
  private readonly means = new Map<string, number>();

  /** Starts timing one hold: the function returned ends it. */
  start(tenant: string): () => void {
    const started = performance.now();
    return () => {
      const ms = performance.now() - started;
      const mean = this.means.get(tenant);
      this.means.set(tenant, mean === undefined ? ms : mean + NEWEST_WEIGHT * (ms - mean));
    };
  }

  typical(tenant: string): number {
    return this.means.get(tenant) ?? FIRST_GUESS_MS;
  }
}

/** Each tenant's pages in this process: a Gate per tenant, sized by its `scrapes`. */
export class LocalPageSlots implements PageSlots {
  private readonly gates = new Map<string, Gate>();
  private readonly holds = new HoldTimes();

  constructor(readonly limits: LimitsOf) {}

  async take(tenant: string, signal: AbortSignal): Promise<PageSlot | null> {
    let gate = this.gates.get(tenant);
    if (!gate) {
      gate = new Gate(`pages of ${tenant}`, this.limits(tenant).scrapes, Number.POSITIVE_INFINITY);
      this.gates.set(tenant, gate);
    }
    try {
      await gate.enter(signal);
    } catch (err) {
      if (signal.aborted) return null; // abandoned while waiting: the queue has no bound to refuse at
      throw err;
    }
    const done = this.holds.start(tenant);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        done();
        gate.leave();
      },
    };
  }

  typicalHoldMs(tenant: string): number {
    return this.holds.typical(tenant);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A page of a request that has a deadline waits for a slot at most this share of what is left of it. */
const PATIENCE = 0.5;

/**
 * One of the tenant's slots for a page with a deadline (a scrape, an extract's page): waited for at most half
 * of what is left of the deadline, so the page keeps the other half; past that, LimitReachedError (429) naming
 * the limit, with the time a page of the tenant takes as Retry-After. A deadline that ends first is its own
 * TimeoutError.
 */
export async function pageSlotWithin(
  slots: PageSlots,
  tenant: string,
  deadline: Deadline,
): Promise<PageSlot> {
  const patience = deadline.slice(deadline.remainingMs() * PATIENCE);
  try {
    const slot = await slots.take(tenant, patience.signal);
    if (slot) return slot;
  } finally {
    patience.dispose();
  }
  deadline.check('waiting for a page slot of the tenant');
  throw scrapesLimitError(tenant, slots.limits(tenant), slots.typicalHoldMs(tenant));
}

function scrapesLimitError(tenant: string, limits: TenantLimits, holdMs: number): LimitReachedError {
  return new LimitReachedError(
    `Tenant ${tenant} has ${limits.scrapes} pages in flight, the most it may (${limitText('scrapes', limits)}), ` +
      'and none came free within half of the timeout: retry once some have finished',
    { retryAfterSeconds: Math.max(1, Math.ceil(holdMs / 1000)) },
  );
}
