/**
 * Per-host politeness: at most `maxPerHost` requests in flight to a host, and request starts spaced by
 * the host's delay (robots Crawl-delay, else the configured minimum).
 */
export class HostLimiter {
  private readonly hosts = new Map<string, { active: number; nextStart: number }>();

  constructor(private readonly maxPerHost: number) {}

  /** Waits for a slot for `host`; resolves false if `signal` aborts first. */
  async acquire(host: string, delayMs: number, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      const state = this.hosts.get(host) ?? { active: 0, nextStart: 0 };
      this.hosts.set(host, state);
      const now = Date.now();
      if (state.active < this.maxPerHost && now >= state.nextStart) {
        state.active++;
        state.nextStart = now + delayMs;
        return true;
      }
      const wait = state.active < this.maxPerHost ? state.nextStart - now : 10;
      await sleep(Math.max(1, wait), signal);
    }
  }

  release(host: string): void {
    const state = this.hosts.get(host);
    if (state) state.active = Math.max(0, state.active - 1);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
