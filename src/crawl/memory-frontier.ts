import type { Frontier, FrontierItem } from './frontier.js';
import { normalizeUrl } from './normalize.js';

/** The in-process frontier: a FIFO queue and a set of normalized URLs seen. */
export class MemoryFrontier implements Frontier {
  private readonly seen = new Set<string>();
  private readonly queue: FrontierItem[] = [];
  private head = 0;
  private inFlight = 0;

  add(item: FrontierItem): boolean {
    const key = normalizeUrl(item.url);
    if (key === null || this.seen.has(key)) return false;
    this.seen.add(key);
    this.queue.push({ ...item, url: key });
    return true;
  }

  next(): FrontierItem | undefined {
    if (this.head >= this.queue.length) return undefined;
    const item = this.queue[this.head]!;
    this.queue[this.head++] = undefined as unknown as FrontierItem; // let the item be collected
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.inFlight++;
    return item;
  }

  complete(_item: FrontierItem): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  get queued(): number {
    return this.queue.length - this.head;
  }

  get discovered(): number {
    return this.seen.size;
  }

  get finished(): boolean {
    return this.queued === 0 && this.inFlight === 0;
  }
}
