import { ServiceBusyError } from '../errors.js';

/**
 * Admission control for one kind of operation: at most `maxActive` run at once, at most `maxQueued`
 * wait for a slot (in arrival order); beyond that a request is refused at once with 503 + Retry-After.
 */
export class Gate {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly name: string,
    private readonly maxActive: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(signal);
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  async enter(signal?: AbortSignal): Promise<void> {
    if (this.active < this.maxActive) {
      this.active++;
      return;
    }
    if (this.queue.length >= this.maxQueued) {
      throw new ServiceBusyError(`Too many ${this.name} requests at once; retry shortly`);
    }
    await new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        signal?.removeEventListener('abort', gone);
        this.active++;
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
    this.active--;
    this.queue.shift()?.();
  }
}
