import type { Frontier, FrontierItem, FrontierStats } from './frontier.js';
import { normalizeUrl } from './normalize.js';

/**
 * The in-process frontier (attached crawls, map): a FIFO queue, a set of normalized URLs seen, and the items
 * put back for a retry with the time they are due (few at once: a linear scan finds the due ones).
 */
export class MemoryFrontier implements Frontier {
  private readonly seen = new Set<string>();
  private readonly queue: FrontierItem[] = [];
  private readonly inFlight = new Set<FrontierItem>();
  private head = 0;
  private delayed: { item: FrontierItem; due: number }[] = [];
  /** The earliest `due` of `delayed` (Infinity when none). */
  private nextDue = Number.POSITIVE_INFINITY;

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

  /** Moves the retries whose time has come to the head of the queue, earliest first. */
  private promoteDue(): void {
    const now = Date.now();
    if (now < this.nextDue) return;
    const due = this.delayed.filter((d) => d.due <= now).sort((a, b) => a.due - b.due);
    this.delayed = this.delayed.filter((d) => d.due > now);
    this.nextDue = Math.min(...this.delayed.map((d) => d.due));
    this.queue.splice(this.head, 0, ...due.map((d) => d.item));
  }

  next(done?: FrontierItem): Promise<FrontierItem | undefined> {
    if (done) this.inFlight.delete(done);
    this.promoteDue();
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

  retryLater(item: FrontierItem, delayMs: number): Promise<void> {
    if (this.inFlight.delete(item)) {
      const due = Date.now() + Math.max(0, delayMs);
      this.delayed.push({ item: { ...item, attempts: (item.attempts ?? 0) + 1 }, due });
      this.nextDue = Math.min(this.nextDue, due);
    }
    return Promise.resolve();
  }

  stats(): Promise<FrontierStats> {
    return Promise.resolve({
      queued: this.queue.length - this.head + this.delayed.length,
      delayed: this.delayed.length,
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
