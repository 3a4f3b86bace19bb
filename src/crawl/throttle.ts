/**
 * What a crawl learns about each host from its answers: how many requests it takes at once and how far apart
 * (additive increase, multiplicative decrease), until when it asked to be left alone (`Retry-After`), and
 * whether it refuses the crawl outright (paused). One per crawl run; "host" is host:port.
 */

/** Added delay after the first "slow down", ms; each further one doubles it, up to MAX_ADDED_DELAY_MS. */
const FIRST_ADDED_DELAY_MS = 100;
/**
 * The most delay added between request starts to a throttled host. Kept low: the host's own Retry-After holds
 * it as long as it asks, and a 20-page site answering one 429 with `Retry-After: 2` per page must still be done
 * in about a minute (20 holds of 2 s, plus at most this per request).
 */
const MAX_ADDED_DELAY_MS = 1000;
/** Successes in a row that give a throttled host one more request in flight. */
const SUCCESSES_PER_STEP = 5;
/** Final outcomes of a host's pages remembered to decide a pause. */
const OUTCOME_WINDOW = 20;
/** A host is paused when more than this share of its last OUTCOME_WINDOW pages were refused. */
const REFUSED_SHARE = 0.5;
/** Statuses that refuse the crawl: counted towards a pause when they are a page's final answer. */
const REFUSALS: ReadonlySet<number> = new Set([403, 429]);

interface HostState {
  /** Requests allowed in flight (between 1 and the crawl's host concurrency). */
  inFlight: number;
  addedDelayMs: number;
  successes: number;
  /** Epoch ms until which the host asked to be left alone; 0 when it did not. */
  heldUntil: number;
  /** Final outcomes of the host's last pages: true for a refusal. */
  outcomes: boolean[];
  paused: boolean;
}

/** A host held by its Retry-After, for the crawl's status. */
export interface HeldHost {
  host: string;
  /** ISO time. */
  until: string;
}

/** The pace of a host as a fleet's workers share it (a crawl's hosts in Redis): what `answered` decides, for all. */
export interface SharedPace {
  /** Applies one answer (`throttled`: a 429 or 503) to the host's shared pace; answers the pace now. */
  answered(host: string, throttled: boolean, maxInFlight: number): Promise<Pace>;
  /**
   * One page's final outcome (`refused`: 403 or 429) in the host's window of the fleet's last outcomes, which
   * pauses the host when most of a full window was refused; answers whether the host is paused.
   */
  settled(host: string, refused: boolean): Promise<boolean>;
  /** The host is paused for the crawl: for every worker, before their next request to it. */
  pause(host: string): Promise<void>;
  /** Whether a worker paused the host for the crawl. */
  paused(host: string): Promise<boolean>;
}

export interface Pace {
  inFlight: number;
  addedDelayMs: number;
  /** A worker paused the host for the crawl. */
  paused: boolean;
}

/** The AIMD of `answered` as numbers, shared with the Redis script that applies it for a fleet. */
export const PACE_STEPS = {
  firstAddedDelayMs: FIRST_ADDED_DELAY_MS,
  maxAddedDelayMs: MAX_ADDED_DELAY_MS,
  successesPerStep: SUCCESSES_PER_STEP,
  outcomeWindow: OUTCOME_WINDOW,
  /** A full window with more refusals than this pauses the host. */
  mostRefused: Math.floor(OUTCOME_WINDOW * REFUSED_SHARE),
};

export class HostThrottle {
  private readonly hosts = new Map<string, HostState>();
  private readonly syncing = new Set<Promise<void>>();

  constructor(
    /** Requests in flight to one host when it has not asked for less (CRAWL_HOST_CONCURRENCY). */
    private readonly maxInFlight: number,
    private readonly now: () => number = Date.now,
    /** A fleet's pace per host: every worker's answers count for all (local decisions are corrected by it). */
    private readonly shared: SharedPace | null = null,
  ) {}

  /** Resolves once the answers given so far reached the shared pace (tests; a crawl never waits for it). */
  async synced(): Promise<void> {
    await Promise.all([...this.syncing]);
  }

  private share(host: string, throttled: boolean): void {
    if (!this.shared) return;
    this.track(
      this.shared.answered(host, throttled, this.maxInFlight).then((pace) => {
        const state = this.state(host);
        state.inFlight = pace.inFlight;
        state.addedDelayMs = pace.addedDelayMs;
        // A pause is never taken back: this worker's own stands until Redis has it too.
        if (pace.paused) state.paused = true;
      }),
    );
  }

  private track(work: Promise<void>): void {
    const done = work
      // Redis away: this worker's own pace stands until it answers again.
      .catch(() => undefined)
      .finally(() => this.syncing.delete(done));
    this.syncing.add(done);
  }

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = {
        inFlight: this.maxInFlight,
        addedDelayMs: 0,
        successes: 0,
        heldUntil: 0,
        outcomes: [],
        paused: false,
      };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** Requests the host takes at once now. */
  inFlightFor(host: string): number {
    return this.hosts.get(host)?.inFlight ?? this.maxInFlight;
  }

  /** Delay added to the host's spacing of request starts now, ms. */
  addedDelayFor(host: string): number {
    return this.hosts.get(host)?.addedDelayMs ?? 0;
  }

  /**
   * One answer of the host. A 429 or 503 halves its requests in flight and raises its added delay, and with a
   * Retry-After holds it: answers the ms to hold it for (null: no hold). Any other answer is a success that
   * gives back, gradually, what earlier ones took.
   */
  answered(host: string, status: number, retryAfterMs: number | null): number | null {
    const state = this.state(host);
    if (status === 429 || status === 503) {
      this.share(host, true);
      state.successes = 0;
      state.inFlight = Math.max(1, Math.floor(state.inFlight / 2));
      state.addedDelayMs = Math.min(
        MAX_ADDED_DELAY_MS,
        Math.max(FIRST_ADDED_DELAY_MS, state.addedDelayMs * 2),
      );
      if (retryAfterMs === null || retryAfterMs <= 0) return null;
      state.heldUntil = Math.max(state.heldUntil, this.now() + retryAfterMs);
      return retryAfterMs;
    }
    this.share(host, false);
    if (state.addedDelayMs > 0) {
      state.addedDelayMs =
        state.addedDelayMs < 2 * FIRST_ADDED_DELAY_MS ? 0 : Math.floor(state.addedDelayMs / 2);
    }
    if (state.inFlight < this.maxInFlight && ++state.successes >= SUCCESSES_PER_STEP) {
      state.inFlight++;
      state.successes = 0;
    }
    return null;
  }

  /**
   * The final outcome of one of the host's pages (after its retries): a `refused` page (403, 429) counts
   * towards pausing the host. Answers true when this outcome paused it.
   */
  settled(host: string, status: number | null): boolean {
    const state = this.state(host);
    const refused = status !== null && REFUSALS.has(status);
    // The fleet's window decides too: two workers each seeing half of a refusing host's pages pause it together.
    if (this.shared) {
      this.track(
        this.shared.settled(host, refused).then((paused) => {
          if (paused) state.paused = true;
        }),
      );
    }
    state.outcomes.push(refused);
    if (state.outcomes.length > OUTCOME_WINDOW) state.outcomes.shift();
    const refusals = state.outcomes.filter(Boolean).length;
    if (
      state.paused ||
      state.outcomes.length < OUTCOME_WINDOW ||
      refusals <= OUTCOME_WINDOW * REFUSED_SHARE
    ) {
      return false;
    }
    state.paused = true;
    if (this.shared) this.track(this.shared.pause(host));
    return true;
  }

  isPaused(host: string): boolean {
    return this.hosts.get(host)?.paused ?? false;
  }

  /**
   * Whether the host is paused here or by another worker of the fleet: asked before each page is fetched, so
   * that a pause reaches every worker before its next request, not after its next answer.
   */
  async isPausedAnywhere(host: string): Promise<boolean> {
    if (this.isPaused(host)) return true;
    if (!this.shared) return false;
    // Redis away: this worker's own pace stands until it answers again.
    const paused = await this.shared.paused(host).catch(() => false);
    if (paused) this.state(host).paused = true;
    return paused;
  }

  /** Hosts held by a Retry-After now. */
  held(): HeldHost[] {
    const now = this.now();
    return [...this.hosts]
      .filter(([, state]) => state.heldUntil > now)
      .map(([host, state]) => ({ host, until: new Date(state.heldUntil).toISOString() }));
  }

  /** Hosts paused for the crawl. */
  paused(): string[] {
    return [...this.hosts].filter(([, state]) => state.paused).map(([host]) => host);
  }
}

/** The crawl's warning about its hosts (null when none is held or paused): what its status shows. */
export function throttleWarning(held: HeldHost[], paused: string[]): string | null {
  const parts: string[] = [];
  if (held.length > 0) {
    parts.push(
      `Throttled by the target: ${held.map((h) => `${h.host} asked to wait (Retry-After) until ${h.until}`).join('; ')}`,
    );
  }
  if (paused.length > 0) {
    parts.push(
      `Paused for this job: ${paused.join(', ')} refused most of its last ${OUTCOME_WINDOW} pages (403/429); their remaining pages are not fetched (HOST_PAUSED)`,
    );
  }
  return parts.length > 0 ? parts.join('. ') : null;
}

/** The warning of a finished crawl whose `errors` name pages not fetched because their host was paused. */
export function pausedWarning(errors: { code: string; url: string }[]): string | null {
  const paused = new Set<string>();
  for (const e of errors) {
    if (e.code !== 'HOST_PAUSED') continue;
    try {
      paused.add(new URL(e.url).host);
    } catch {
      // a URL stored as sent that does not parse names no host
    }
  }
  return throttleWarning([], [...paused]);
}
