import type { ByteBudget } from '../byte-budget.js';

/**
 * Input and output of the PDF filter decoders that check a stream's size (pdf-filters.ts, pdf-flate.ts):
 * input is pulled in chunks (so a decrypting source works only as far as a decoder reads), output is counted
 * and charged to the document's budget as it is produced, and kept only when a later filter reads it.
 */

/** Chunks of a stream's bytes, in order; null at the end. */
export interface ChunkSource {
  next(): Uint8Array | null;
}

const EMPTY = new Uint8Array(0);

/** Chunks of one buffer: no copy. */
export function chunksOf(bytes: Uint8Array, chunk = 65536): ChunkSource {
  let at = 0;
  return {
    next: () => (at >= bytes.length ? null : bytes.subarray(at, (at += chunk))),
  };
}

/** Reads a source byte by byte; counts what it pulled, so a caller can bound the work over a whole file. */
export class ByteReader {
  private chunk: Uint8Array = EMPTY;
  private at = 0;
  private ended = false;
  pulled = 0;

  constructor(private readonly source: ChunkSource) {}

  byte(): number {
    if (this.at < this.chunk.length) return this.chunk[this.at++]!;
    return this.refill() ? this.chunk[this.at++]! : -1;
  }

  peek(): number {
    if (this.at < this.chunk.length) return this.chunk[this.at]!;
    return this.refill() ? this.chunk[this.at]! : -1;
  }

  private refill(): boolean {
    while (!this.ended) {
      const next = this.source.next();
      if (next === null) this.ended = true;
      else if (next.length > 0) {
        this.pulled += next.length;
        this.chunk = next;
        this.at = 0;
        return true;
      }
    }
    return false;
  }
}

/** Charged every this many bytes, so a decoder overruns the budget by one step at most. */
const CHARGE_STEP = 65536;

/** What one filter produced: counted and charged always, kept when `keep` (a later filter reads it). */
export class FilterOutput {
  length = 0;
  private charged = 0;
  private data: Uint8Array;

  constructor(
    private readonly budget: ByteBudget,
    readonly keep: boolean,
  ) {
    this.data = keep ? new Uint8Array(4096) : EMPTY;
  }

  push(byte: number): void {
    if (this.keep) {
      if (this.length === this.data.length) this.grow(this.length + 1);
      this.data[this.length] = byte;
    }
    if (++this.length - this.charged >= CHARGE_STEP) this.settle();
  }

  append(bytes: Uint8Array): void {
    if (this.keep) {
      this.grow(this.length + bytes.length);
      this.data.set(bytes, this.length);
    }
    this.advance(bytes.length);
  }

  fill(byte: number, count: number): void {
    if (this.keep) {
      this.grow(this.length + count);
      this.data.fill(byte, this.length, this.length + count);
    }
    this.advance(count);
  }

  /** A back-reference: `count` bytes copied from `distance` back, reading 0 before the start (as pdf.js). */
  copyBack(distance: number, count: number): void {
    if (this.keep) {
      this.grow(this.length + count);
      const data = this.data;
      for (let i = this.length, end = i + count; i < end; i++)
        data[i] = i - distance >= 0 ? data[i - distance]! : 0;
    }
    this.advance(count);
  }

  private advance(count: number): void {
    this.length += count;
    if (this.length - this.charged >= CHARGE_STEP) this.settle();
  }

  /** Charges what is not charged yet; call when the decoder is done (or has failed). */
  settle(): void {
    this.budget.charge(this.length - this.charged);
    this.charged = this.length;
  }

  /** The bytes produced, as the next filter's input. */
  bytes(): Uint8Array {
    return this.data.subarray(0, this.length);
  }

  private grow(needed: number): void {
    if (needed <= this.data.length) return;
    let size = Math.max(4096, this.data.length);
    while (size < needed) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }
}
