import type { Frontier, FrontierItem, FrontierStats } from './frontier.js';
import { normalizeUrl } from './normalize.js';

/** The in-process frontier (attached crawls, map): a FIFO queue and a set of normalized URLs seen. */
export class MemoryFrontier implements Frontier {
  private readonly seen = new Set<string>();
  private readonly queue: FrontierItem[] = [];
  private readonly inFlight = new Set<FrontierItem>();
  private head = 0;

  add(items: readonly FrontierItem[]): Promise<number> {
    let accepted = 0;
    for (const item of items) {
      const key = normalizeUrl(item.url);
      if (key === null || this.seen.has(key)) continue;
      this.seen.add(key);
      this.queue.push({ ...item, url: key });
      accepted++;
    }
    return Promise.resolve(accepted);
  }

  next(done?: FrontierItem): Promise<FrontierItem | undefined> {
    if (done) this.inFlight.delete(done);
    if (this.head >= this.queue.length) return Promise.resolve(undefined);
    const item = this.queue[this.head]!;
    this.queue[this.head++] = undefined as unknown as FrontierItem; // let the item be collected
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.inFlight.add(item);
    return Promise.resolve(item);
  }

  complete(item: FrontierItem): Promise<void> {
    this.inFlight.delete(item);
    return Promise.resolve();
  }

  stats(): Promise<FrontierStats> {
    return Promise.resolve({
      queued: this.queue.length - this.head,
      inFlight: this.inFlight.size,
      discovered: this.seen.size,
    });
  }

  requeueInFlight(): Promise<number> {
    const items = [...this.inFlight];
    this.inFlight.clear();
    this.queue.splice(this.head, 0, ...items);
    return Promise.resolve(items.length);
  }
}
