import { ServiceBusyError } from '../errors.js';

/** Waiters of one key, in arrival order. */
type Queue = (() => void)[];

/**
 * The service's one concurrency primitive: at most `maxActive` holders at once, the others waiting for a slot
 * (woken one by one, never by polling). It bounds request admission per operation, jobs running, browser
 * pages, requests in flight per host during a crawl, each tenant's pages in flight, `mapWithLimit`'s lanes
 * and the tasks of the content workers.
 *
 * A waiter may name a key (its tenant): while several keys have waiters, freed slots go round the keys in
 * turn, each key's waiters in arrival order, so a key with 500 waiting and a key with one take alternate
 * slots. Unkeyed waiters share one key: without keys the gate is first come, first served.
 *
 * At most `maxQueued` wait; past it, `enter` refuses at once with 503 + Retry-After, except for a key holding
 * less than its share of the queue (`maxQueued` over the keys waiting): one key's flood never shuts another
 * out, and the queue stays under twice `maxQueued`. The number of holders may change while the gate is used
 * (`resize`: a crawl lowers a host's when the host asks it to slow down).
 */
export class Gate {
  private activeCount = 0;
  private queuedCount = 0;
  /** Keys with waiters, in the order they take their turns (the next turn is the first key's). */
  private readonly queues = new Map<string | undefined, Queue>();

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
   * Changes the holders allowed at once: more wakes waiters in turn; fewer lets the holders beyond it finish,
   * and nobody enters until the count is below the new limit.
   */
  resize(maxActive: number): void {
    this.maxActive = Math.max(1, maxActive);
    while (this.activeCount < this.maxActive && this.wakeNext());
  }

  /** Holders right now. */
  get active(): number {
    return this.activeCount;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.queuedCount;
  }

  /** Callers of `key` waiting for a slot. */
  waitingFor(key: string | undefined): number {
    return this.queues.get(key)?.length ?? 0;
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal, key?: string): Promise<T> {
    await this.enter(signal, key);
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  async enter(signal?: AbortSignal, key?: string): Promise<void> {
    if (this.activeCount < this.maxActive) {
      this.activeCount++;
      return;
    }
    if (signal?.aborted) throw new ServiceBusyError(`${this.name} request abandoned while queued`);
    const own = this.queues.get(key);
    if (this.queuedCount >= this.maxQueued) {
      const keys = this.queues.size + (own ? 0 : 1);
      if ((own?.length ?? 0) >= this.maxQueued / keys) {
        throw new ServiceBusyError(`Too many ${this.name} requests at once; retry shortly`);
      }
    }
    await new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        signal?.removeEventListener('abort', gone);
        this.activeCount++;
        resolve();
      };
      const gone = (): void => {
        const queue = this.queues.get(key);
        const index = queue?.indexOf(ready) ?? -1;
        if (index >= 0) {
          queue!.splice(index, 1);
          this.queuedCount--;
          if (queue!.length === 0) this.queues.delete(key);
        }
        reject(new ServiceBusyError(`${this.name} request abandoned while queued`));
      };
      const queue = this.queues.get(key);
      if (queue) queue.push(ready);
      else this.queues.set(key, [ready]);
      this.queuedCount++;
      signal?.addEventListener('abort', gone, { once: true });
    });
  }

  leave(): void {
    this.activeCount--;
    if (this.activeCount < this.maxActive) this.wakeNext();
  }

  /** Wakes the first waiter of the key whose turn it is; that key's next turn comes after every other key's. */
  private wakeNext(): boolean {
    const next = this.queues.entries().next();
    if (next.done) return false;
    const [key, queue] = next.value;
    const ready = queue.shift()!;
    this.queuedCount--;
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    ready();
    return true;
  }
}
