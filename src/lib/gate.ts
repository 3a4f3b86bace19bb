import { ServiceBusyError } from '../errors.js';

/**
 * The service's one concurrency primitive: at most `maxActive` holders at once, at most `maxQueued` waiting
 * for a slot (in arrival order, woken one by one, never by polling); beyond that `enter` refuses at once with
 * 503 + Retry-After. It bounds request admission per operation, jobs running, browser pages, requests in
 * flight per host during a crawl, and `mapWithLimit`'s lanes.
 */
export class Gate {
  private activeCount = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly name: string,
    private readonly maxActive: number,
    private readonly maxQueued: number,
  ) {}

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
    this.queue.shift()?.();
  }
}
