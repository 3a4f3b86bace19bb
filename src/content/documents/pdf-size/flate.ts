import type { ByteReader, FilterOutput } from './filter-io.js';

/**
 * FlateDecode as pdf.js 4.10 decodes it (src/core/flate_stream.js), so the bytes counted are the bytes the
 * reader would produce: the same zlib header checks, and the same leniency where zlib itself would stop
 * (a distance reaching before the output reads zeros, length codes 286-287 mean 258, a truncated stream
 * ends quietly). A strict inflater would stop early on such input while pdf.js inflates on.
 */

const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
/** Length codes 257-287: extra bits << 16 | base. */
const LENGTHS = [
  0x00003, 0x00004, 0x00005, 0x00006, 0x00007, 0x00008, 0x00009, 0x0000a, 0x1000b, 0x1000d, 0x1000f, 0x10011,
  0x20013, 0x20017, 0x2001b, 0x2001f, 0x30023, 0x3002b, 0x30033, 0x3003b, 0x40043, 0x40053, 0x40063, 0x40073,
  0x50083, 0x500a3, 0x500c3, 0x500e3, 0x00102, 0x00102, 0x00102,
];
/** Distance codes 0-29: extra bits << 16 | base. */
const DISTANCES = [
  0x00001, 0x00002, 0x00003, 0x00004, 0x10005, 0x10007, 0x20009, 0x2000d, 0x30011, 0x30019, 0x40021, 0x40031,
  0x50041, 0x50061, 0x60081, 0x600c1, 0x70101, 0x70181, 0x80201, 0x80301, 0x90401, 0x90601, 0xa0801, 0xa0c01,
  0xb1001, 0xb1801, 0xc2001, 0xc3001, 0xd4001, 0xd6001,
];

type Table = [codes: Int32Array, maxLength: number];

/** pdf.js's single-level table: entry = code length << 16 | symbol, indexed by the next maxLength bits. */
function huffmanTable(lengths: ArrayLike<number>): Table {
  let maxLength = 0;
  for (let i = 0; i < lengths.length; i++) maxLength = Math.max(maxLength, lengths[i]!);
  const size = 1 << maxLength;
  const codes = new Int32Array(size);
  for (let len = 1, code = 0, skip = 2; len <= maxLength; ++len, code <<= 1, skip <<= 1) {
    for (let symbol = 0; symbol < lengths.length; ++symbol) {
      if (lengths[symbol] !== len) continue;
      let reversed = 0;
      for (let i = 0, t = code; i < len; ++i, t >>= 1) reversed = (reversed << 1) | (t & 1);
      for (let i = reversed; i < size; i += skip) codes[i] = (len << 16) | symbol;
      ++code;
    }
  }
  return [codes, maxLength];
}

const FIXED_LITERALS = huffmanTable(
  Array.from({ length: 288 }, (_, i) => (i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8)),
);
const FIXED_DISTANCES = huffmanTable(new Array<number>(30).fill(5));

/** Thrown where pdf.js throws: decoding ends there, with what was produced so far. */
class BadData extends Error {}

class Inflater {
  private bits = 0;
  private bitCount = 0;

  constructor(
    private readonly input: ByteReader,
    private readonly out: FilterOutput,
  ) {}

  private getBits(n: number): number {
    while (this.bitCount < n) {
      const b = this.input.byte();
      if (b === -1) throw new BadData('end of data');
      this.bits |= b << this.bitCount;
      this.bitCount += 8;
    }
    const value = this.bits & ((1 << n) - 1);
    this.bits >>= n;
    this.bitCount -= n;
    return value;
  }

  private getCode([codes, maxLength]: Table): number {
    while (this.bitCount < maxLength) {
      const b = this.input.byte();
      if (b === -1) break;
      this.bits |= b << this.bitCount;
      this.bitCount += 8;
    }
    const code = codes[this.bits & ((1 << maxLength) - 1)]!;
    const length = code >> 16;
    if (length < 1 || this.bitCount < length) throw new BadData('bad code');
    this.bits >>= length;
    this.bitCount -= length;
    return code & 0xffff;
  }

  /** One block; true when it was the last. */
  block(): boolean {
    let header: number;
    try {
      header = this.getBits(3);
    } catch {
      return true;
    }
    const last = (header & 1) === 1;
    const type = header >> 1;
    if (type === 0) return this.stored() || last;
    let literals: Table;
    let distances: Table;
    if (type === 1) [literals, distances] = [FIXED_LITERALS, FIXED_DISTANCES];
    else if (type === 2) [literals, distances] = this.dynamicTables();
    else throw new BadData('unknown block type');
    for (;;) {
      let symbol = this.getCode(literals);
      if (symbol < 256) {
        this.out.push(symbol);
        continue;
      }
      if (symbol === 256) return last;
      symbol = LENGTHS[symbol - 257] ?? 0;
      const length = (symbol & 0xffff) + (symbol >> 16 > 0 ? this.getBits(symbol >> 16) : 0);
      const d = DISTANCES[this.getCode(distances)] ?? 0;
      const distance = (d & 0xffff) + (d >> 16 > 0 ? this.getBits(d >> 16) : 0);
      this.out.copyBack(distance, length);
    }
  }

  /** A stored block; true when the data ended inside it. */
  private stored(): boolean {
    const header: number[] = [];
    for (let i = 0; i < 4; i++) {
      const b = this.input.byte();
      if (b === -1) return true;
      header.push(b);
    }
    const length = header[0]! | (header[1]! << 8);
    const check = header[2]! | (header[3]! << 8);
    if (check !== (~length & 0xffff) && (length !== 0 || check !== 0)) throw new BadData('bad stored length');
    this.bits = 0;
    this.bitCount = 0;
    if (length === 0) return this.input.peek() === -1;
    const block = new Uint8Array(length);
    let read = 0;
    for (let b = 0; read < length && (b = this.input.byte()) !== -1; read++) block[read] = b;
    // pdf.js sizes its buffer for the whole block even when the data ends inside it.
    this.out.append(block);
    return read < length;
  }

  private dynamicTables(): [Table, Table] {
    const literalCount = this.getBits(5) + 257;
    const distanceCount = this.getBits(5) + 1;
    const lengthCodes = this.getBits(4) + 4;
    const codeLengthLengths = new Uint8Array(CODE_LENGTH_ORDER.length);
    for (let i = 0; i < lengthCodes; ++i) codeLengthLengths[CODE_LENGTH_ORDER[i]!] = this.getBits(3);
    const codeLengthTable = huffmanTable(codeLengthLengths);
    const total = literalCount + distanceCount;
    const lengths = new Uint8Array(total);
    for (let i = 0, previous = 0; i < total;) {
      const code = this.getCode(codeLengthTable);
      if (code < 16) {
        lengths[i++] = previous = code;
        continue;
      }
      const [bits, offset, value] = code === 16 ? [2, 3, previous] : code === 17 ? [3, 3, 0] : [7, 11, 0];
      if (code !== 16) previous = 0;
      for (let repeat = this.getBits(bits) + offset; repeat-- > 0;) lengths[i++] = value;
    }
    return [
      huffmanTable(lengths.subarray(0, literalCount)),
      huffmanTable(lengths.subarray(literalCount, total)),
    ];
  }
}

/**
 * Inflates a FlateDecode stream into `out` (counted, kept if asked), ending where pdf.js would: at the last
 * block, at the end of the data, or at data it cannot decode. A bad zlib header gives nothing, as in pdf.js.
 */
export function inflatePdf(input: ByteReader, out: FilterOutput): void {
  const cmf = input.byte();
  const flg = input.byte();
  if (cmf === -1 || flg === -1 || (cmf & 0x0f) !== 8 || ((cmf << 8) + flg) % 31 !== 0 || flg & 0x20) return;
  const inflater = new Inflater(input, out);
  try {
    while (!inflater.block());
  } catch (err) {
    if (!(err instanceof BadData)) throw err;
  }
}
