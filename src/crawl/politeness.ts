import { Gate } from '../lib/gate.js';
import { sleep } from '../lib/sleep.js';

/** Per-host politeness: request starts to a host spaced by its delay, a bounded number in flight. */
export interface Politeness {
  /**
   * Waits for a slot for `host` (at most `maxInFlight` held at once: the host's share now, which a throttled
   * host lowers) and its turn; false (holding nothing) if `signal` aborts first.
   */
  acquire(host: string, delayMs: number, signal: AbortSignal, maxInFlight: number): Promise<boolean>;
  release(host: string): void;
  /** No request to `host` starts for `ms` from now (its Retry-After), whoever asks. */
  hold(host: string, ms: number): Promise<void>;
}

/**
 * Per-host politeness for one crawl in this process: at most `maxPerHost` requests in flight to a host (a Gate per host,
 * the service's one concurrency primitive), and request starts spaced by the host's delay (robots
 * Crawl-delay, else the configured minimum). Waiters are woken in order, never by polling.
 */
interface HostState {
  gate: Gate;
  /** When the next request may start (spacing by the host's delay). */
  nextStart: number;
  /** Until when the host asked to be left alone (Retry-After). */
  heldUntil: number;
  /** When the last request actually started: a turn spent late (a busy event loop) pushes the next one. */
  lastStart: number;
}

export class HostLimiter implements Politeness {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly maxPerHost: number) {}

  private stateOf(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      const gate = new Gate(`host ${host}`, this.maxPerHost, Number.POSITIVE_INFINITY);
      state = { gate, nextStart: 0, heldUntil: 0, lastStart: 0 };
      this.hosts.set(host, state);
    }
    return state;
  }

  async acquire(host: string, delayMs: number, signal: AbortSignal, maxInFlight: number): Promise<boolean> {
    const state = this.stateOf(host);
    const limit = Math.min(this.maxPerHost, maxInFlight);
    if (state.gate.limit !== limit) state.gate.resize(limit);
    try {
      await state.gate.enter(signal);
    } catch {
      return false;
    }
    const now = Date.now();
    const start = Math.max(now, state.nextStart, state.heldUntil);
    state.nextStart = start + delayMs;
    await sleep(start - now, signal);
    // Spaced from the last actual start, and a hold that came while this request waited its turn (a 429 to a
    // request in flight) holds it too.
    for (
      let wait = Math.max(state.lastStart + delayMs, state.heldUntil) - Date.now();
      wait > 0 && !signal.aborted;
      wait = Math.max(state.lastStart + delayMs, state.heldUntil) - Date.now()
    ) {
      await sleep(wait, signal);
    }
    if (signal.aborted) {
      state.gate.leave();
      return false;
    }
    state.lastStart = Date.now();
    return true;
  }

  release(host: string): void {
    this.hosts.get(host)?.gate.leave();
  }

  hold(host: string, ms: number): Promise<void> {
    const state = this.stateOf(host);
    state.heldUntil = Math.max(state.heldUntil, Date.now() + ms);
    return Promise.resolve();
  }
}
