import { ServiceBusyError } from '../errors.js';

/**
 * The service's one concurrency primitive: at most `maxActive` holders at once, at most `maxQueued` waiting
 * for a slot (in arrival order, woken one by one, never by polling); beyond that `enter` refuses at once with
 * 503 + Retry-After. It bounds request admission per operation, jobs running, browser pages, requests in
 * flight per host during a crawl, and `mapWithLimit`'s lanes. Its number of holders may be changed while it
 * is used (`resize`: a crawl lowers a host's when the host asks it to slow down).
 */
export class Gate {
  private activeCount = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly name: string,
    private maxActive: number,
    private readonly maxQueued: number,
  ) {}

  /** Holders allowed at once now. */
  get limit(): number {
    return this.maxActive;
  }

  /**
   * Changes the holders allowed at once: more wakes waiters in order; fewer lets the holders beyond it finish,
   * and nobody enters until the count is below the new limit.
   */
  resize(maxActive: number): void {
    this.maxActive = Math.max(1, maxActive);
    while (this.activeCount < this.maxActive && this.queue.length > 0) this.queue.shift()!();
  }

  /** Holders right now. */
  get active(): number {
    return this.activeCount;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(signal);
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  async enter(signal?: AbortSignal): Promise<void> {
    if (this.activeCount < this.maxActive) {
      this.activeCount++;
      return;
    }
    if (signal?.aborted) throw new ServiceBusyError(`${this.name} request abandoned while queued`);
    if (this.queue.length >= this.maxQueued) {
      throw new ServiceBusyError(`Too many ${this.name} requests at once; retry shortly`);
    }
    await new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        signal?.removeEventListener('abort', gone);
        this.activeCount++;
        resolve();
      };
      const gone = (): void => {
        const index = this.queue.indexOf(ready);
        if (index >= 0) this.queue.splice(index, 1);
        reject(new ServiceBusyError(`${this.name} request abandoned while queued`));
      };
      this.queue.push(ready);
      signal?.addEventListener('abort', gone, { once: true });
    });
  }

  leave(): void {
    this.activeCount--;
    if (this.activeCount < this.maxActive) this.queue.shift()?.();
  }
}
