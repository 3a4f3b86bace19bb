import type { ByteBudget } from '../byte-budget.js';
import { ByteReader, type ChunkSource, FilterOutput, chunksOf } from './filter-io.js';
import { inflatePdf } from './flate.js';

/**
 * A stream's filter chain decoded as pdf.js decodes it, every stage's output charged to the document's
 * budget (pdf.js keeps each stage's whole output in memory). Filters that can expand their input are all
 * decoded: FlateDecode, LZWDecode (up to ~2,600:1), RunLengthDecode (64:1) and ASCII85Decode (`z`, 4:1);
 * ASCIIHexDecode halves. Image codecs (DCT, JPX, JBIG2, CCITT) end the chain: their output is not counted
 * (the text layer does not decode images).
 */

export interface FilterStep {
  name: string;
  /** LZW's EarlyChange (DecodeParms), 1 when absent. */
  earlyChange: number;
  /** Bytes of one predictor row (DecodeParms /Columns × /Colors × /BitsPerComponent), 0 without a predictor. */
  predictorRow: number;
}

type Decoder = (input: ByteReader, out: FilterOutput, step: FilterStep) => void;

/** pdf.js's LZWStream: 9-12 bit codes, 256 clears, 257 ends; EarlyChange shifts when the width grows. */
function lzw(input: ByteReader, out: FilterOutput, { earlyChange }: FilterStep): void {
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const previous = new Uint16Array(4096);
  const sequence = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) {
    values[i] = i;
    lengths[i] = 1;
  }
  let cached = 0;
  let cachedBits = 0;
  let codeLength = 9;
  let nextCode = 258;
  let prevCode = 0;
  let sequenceLength = 0;
  for (;;) {
    while (cachedBits < codeLength) {
      const b = input.byte();
      if (b === -1) return;
      cached = ((cached << 8) | b) >>> 0;
      cachedBits += 8;
    }
    cachedBits -= codeLength;
    const code = (cached >>> cachedBits) & ((1 << codeLength) - 1);
    const hasPrevious = sequenceLength > 0;
    if (code < 256) {
      sequence[0] = code;
      sequenceLength = 1;
    } else if (code >= 258) {
      if (code < nextCode) {
        sequenceLength = lengths[code]!;
        for (let j = sequenceLength - 1, q = code; j >= 0; j--) {
          sequence[j] = values[q]!;
          q = previous[q]!;
        }
      } else sequence[sequenceLength++] = sequence[0]!;
    } else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      sequenceLength = 0;
      continue;
    } else return;
    if (hasPrevious) {
      previous[nextCode] = prevCode;
      lengths[nextCode] = lengths[prevCode]! + 1;
      values[nextCode] = sequence[0]!;
      nextCode++;
      const n = nextCode + earlyChange;
      codeLength = n & (n - 1) ? codeLength : Math.min(Math.log(n) / 0.6931471805599453 + 1, 12) | 0;
    }
    prevCode = code;
    out.append(sequence.subarray(0, sequenceLength));
  }
}

function runLength(input: ByteReader, out: FilterOutput): void {
  for (;;) {
    const n = input.byte();
    const b = input.byte();
    if (n === -1 || b === -1 || n === 128) return;
    if (n > 128) {
      out.fill(b, 257 - n);
      continue;
    }
    out.push(b);
    for (let i = 0, c = 0; i < n && (c = input.byte()) !== -1; i++) out.push(c);
  }
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

function ascii85(input: ByteReader, out: FilterOutput): void {
  const group = new Uint8Array(5);
  for (;;) {
    let c = input.byte();
    while (isSpace(c)) c = input.byte();
    if (c === -1 || c === 0x7e) return;
    if (c === 0x7a) {
      out.fill(0, 4);
      continue;
    }
    group[0] = c;
    let i = 1;
    for (; i < 5; i++) {
      c = input.byte();
      while (isSpace(c)) c = input.byte();
      group[i] = c;
      if (c === -1 || c === 0x7e) break;
    }
    const bytes = i - 1;
    for (let j = i; j < 5; j++) group[j] = 0x21 + 84;
    let t = 0;
    for (let j = 0; j < 5; j++) t = t * 85 + (group[j]! - 0x21);
    for (let j = 0; j < bytes; j++) out.push((t >>> (24 - 8 * j)) & 0xff);
    if (bytes < 4) return;
  }
}

function asciiHex(input: ByteReader, out: FilterOutput): void {
  let first = -1;
  for (let c = input.byte(); c !== -1 && c !== 0x3e; c = input.byte()) {
    const d =
      c >= 0x30 && c <= 0x39
        ? c & 0x0f
        : (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
          ? (c & 0x0f) + 9
          : -1;
    if (d < 0) continue;
    if (first < 0) first = d;
    else {
      out.push((first << 4) | d);
      first = -1;
    }
  }
  if (first >= 0) out.push(first << 4);
}

const DECODERS: Record<string, Decoder> = {
  FlateDecode: inflatePdf,
  Fl: inflatePdf,
  LZWDecode: lzw,
  LZW: lzw,
  RunLengthDecode: runLength,
  RL: runLength,
  ASCII85Decode: ascii85,
  A85: ascii85,
  ASCIIHexDecode: asciiHex,
  AHx: asciiHex,
};

/** Image codecs: pdf.js decodes them, we do not (see above), so the chain is followed up to the first. */
const CODECS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JPX', 'JBIG2Decode', 'CCITTFaxDecode', 'CCF']);

/** Stages that get decoded: up to the first image codec; a filter pdf.js does not know passes bytes through. */
export function decodedSteps(chain: FilterStep[]): FilterStep[] {
  const end = chain.findIndex((step) => CODECS.has(step.name));
  return (end < 0 ? chain : chain.slice(0, end)).filter((step) => DECODERS[step.name] !== undefined);
}

/**
 * Decodes `chain` over `source`, charging `budget` with every stage's output and with each predictor's row
 * buffers (pdf.js sizes two buffers by /Columns before it reads a row, so a few bytes with a huge /Columns
 * allocate hundreds of MB). Only stages that feed another are kept. Returns the input bytes pulled.
 */
export function decodeChain(chain: FilterStep[], source: ChunkSource, budget: ByteBudget): number {
  const steps = decodedSteps(chain);
  let pulled = 0;
  let input = source;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const reader = new ByteReader(input);
    const out = new FilterOutput(budget, i < steps.length - 1);
    try {
      DECODERS[step.name]!(reader, out, step);
    } finally {
      pulled += reader.pulled;
      out.settle();
    }
    budget.charge(2 * step.predictorRow);
    input = chunksOf(out.bytes());
  }
  return pulled;
}
