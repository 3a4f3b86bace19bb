import { Gate } from './gate.js';

/**
 * Work run one at a time per key, in arrival order: a Gate of one holder per key, dropped once nobody holds or
 * waits for it. For what must count and then write with no other caller of the same key counting in between
 * (a cap checked when it is asked for, not when it is answered).
 */
export class SerialByKey {
  private readonly gates = new Map<string, Gate>();

  constructor(
    private readonly name: string,
    /** Callers of one key waiting their turn; beyond it, the Gate's 503. */
    private readonly maxQueued: number,
  ) {}

  /** Runs `work` once no other caller of `key` runs; a caller whose `signal` aborts while waiting gets a 503. */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let gate = this.gates.get(key);
    if (!gate) {
      gate = new Gate(this.name, 1, this.maxQueued);
      this.gates.set(key, gate);
    }
    try {
      return await gate.run(work, signal);
    } finally {
      if (gate.active === 0 && gate.waiting === 0 && this.gates.get(key) === gate) this.gates.delete(key);
    }
  }

  /** Keys with a holder or waiters now. */
  get keys(): number {
    return this.gates.size;
  }
}
