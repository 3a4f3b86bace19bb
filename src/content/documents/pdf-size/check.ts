import { ContentTooLargeError, UnsupportedContentError } from '../../../errors.js';
import { ByteBudget } from '../byte-budget.js';
import { type ChunkSource, chunksOf } from './filter-io.js';
import { type FilterStep, decodeChain, decodedSteps } from './filters.js';
import { type PdfIndex, type StreamObject, indexPdf } from './objects.js';
import { type StreamDecryptor, openWithoutPassword } from './security.js';
import { disarm, isUnread } from './unread-streams.js';
import { PdfCommand, type PdfDict, PdfLexer, PdfName, PdfRef, type PdfValue, canonical } from './syntax.js';

/**
 * Before pdf.js reads a PDF: every stream in the file is decoded as pdf.js would decode it, and what the
 * decoding produces is summed over the file against MAX_DOCUMENT_BYTES, without keeping it. pdf.js keeps
 * inflated streams in ArrayBuffers, off the worker's heap, so its heap cap does not stop a 1 MB file that
 * inflates to 1 GiB; this does. Encrypted streams are decrypted first (pdf-security.ts).
 */

const MESSAGE = "The PDF's streams inflate";
/** What a filter can expand to at most, for a stream whose decryption cannot be reproduced here. */
const MAX_RATIO: Record<string, number> = { Fl: 1032, LZW: 2600, RL: 64, A85: 4, AHx: 1 };
const LONG_NAMES: Record<string, string> = {
  FlateDecode: 'Fl',
  LZWDecode: 'LZW',
  RunLengthDecode: 'RL',
  ASCII85Decode: 'A85',
  ASCIIHexDecode: 'AHx',
};
/** The largest predictor row pdf.js can compute ((2^31 - 1) >> 3), for parameters that cannot be read. */
const WORST_ROW = 0x0fffffff;

/** How a scan treats encryption: not at all, through one decryptor, or by the ratio bound. */
type Mode = { kind: 'plain' } | { kind: 'decrypt'; decrypt: StreamDecryptor } | { kind: 'bound' };

const nameOf = (v: PdfValue | undefined): string | null => (v instanceof PdfName ? v.name : null);
const numberOr = (v: PdfValue | undefined, fallback: number): number =>
  v === undefined || v === null || v === 0 || v === false ? fallback : typeof v === 'number' ? v : NaN;

/** pdf.js's Dict.get(a, b): the first key present, a reference resolved. */
function get(
  dict: PdfDict,
  index: PdfIndex,
  ...keys: string[]
): { raw: PdfValue | undefined; value: PdfValue | undefined } {
  const key = keys.find((k) => dict.has(k));
  const raw = key === undefined ? undefined : dict.get(key);
  return { raw, value: index.resolve(raw) };
}

/** A predictor's row bytes, as pdf.js computes them; 0 without a predictor. */
function predictorRow(params: PdfValue | undefined, index: PdfIndex): number {
  if (!(params instanceof Map)) return 0;
  const read = (...keys: string[]): PdfValue | undefined | typeof WORST_ROW => {
    const { raw, value } = get(params, index, ...keys);
    return raw instanceof PdfRef && value === undefined ? WORST_ROW : value;
  };
  const predictor = read('Predictor');
  if (predictor === WORST_ROW) return WORST_ROW;
  const p = numberOr(predictor as PdfValue, 1);
  if (!(p > 1) || (p !== 2 && (p < 10 || p > 15))) return 0;
  const values = [read('Colors'), read('BPC', 'BitsPerComponent'), read('Columns')];
  if (values.includes(WORST_ROW)) return WORST_ROW;
  const [colors, bits, columns] = values.map((v, i) => numberOr(v as PdfValue, i === 1 ? 8 : 1));
  return Math.max(0, (columns! * colors! * bits! + 7) >> 3);
}

/** The stream's filter chain as pdf.js builds it; [] when pdf.js refuses it, null when it cannot be known. */
function chainOf(dict: PdfDict, index: PdfIndex): FilterStep[] | null {
  const filter = get(dict, index, 'F', 'Filter');
  const params = get(dict, index, 'DP', 'DecodeParms');
  if (
    (filter.raw instanceof PdfRef && filter.value === undefined) ||
    (params.raw instanceof PdfRef && params.value === undefined)
  )
    return null;
  const step = (name: string, p: PdfValue | undefined): FilterStep => {
    const early = p instanceof Map ? get(p, index, 'EarlyChange').value : undefined;
    return {
      name,
      earlyChange: typeof early === 'number' ? early : 1,
      predictorRow: ['Fl', 'FlateDecode', 'LZW', 'LZWDecode'].includes(name) ? predictorRow(p, index) : 0,
    };
  };
  if (filter.value instanceof PdfName) return [step(filter.value.name, params.value)];
  if (!Array.isArray(filter.value)) return [];
  const chain: FilterStep[] = [];
  for (const [i, element] of filter.value.entries()) {
    const name = nameOf(index.resolve(element));
    if (element instanceof PdfRef && name === null && index.resolve(element) === undefined) return null;
    if (name === null) return []; // pdf.js: "Bad filter name", the stream is not read
    const p = Array.isArray(params.value) ? index.resolve(params.value[i]) : undefined;
    chain.push(step(name, p));
  }
  return chain;
}

/**
 * Where the stream's data ends, as pdf.js finds it: /Length when `endstream` follows it, else the first
 * `endstream` (or pdf.js's misspellings of it). `searched` is how far a search read.
 */
function dataEnd(bytes: Uint8Array, stream: StreamObject): { end: number; searched: number } {
  const length = stream.dict.get('Length');
  // An indirect length may live in an object stream this scan does not read: every decoder ends by itself,
  // so reading on to the end of the file counts at least what pdf.js reads.
  if (length instanceof PdfRef) return { end: bytes.length, searched: 0 };
  const claimed = typeof length === 'number' && Number.isInteger(length) && length >= 0 ? length : 0;
  const after = new PdfLexer(bytes, stream.start + claimed).token();
  if (stream.start + claimed <= bytes.length && after instanceof PdfCommand && after.command === 'endstream')
    return { end: stream.start + claimed, searched: 0 };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = text.indexOf('end', stream.start);
  for (; at >= 0 && at + 9 <= bytes.length; at = text.indexOf('end', at + 1)) {
    const tail = text.toString('latin1', at + 3, at + 9);
    if (tail === 'stream' || /^(steam|strea)[ \t\r\n]/.test(tail)) break;
  }
  const end = at >= 0 && at + 9 <= bytes.length ? at : bytes.length;
  return { end, searched: end - stream.start };
}

/** Decodes one stream under `mode`, charging `budget`; returns the input bytes it read (work, not output). */
function decodeStream(
  bytes: Uint8Array,
  stream: StreamObject,
  index: PdfIndex,
  mode: Mode,
  budget: ByteBudget,
): number {
  const chain = chainOf(stream.dict, index);
  if (chain === null) {
    throw new UnsupportedContentError(
      "A stream's filters are an indirect object this check cannot read, so its size cannot be bounded",
    );
  }
  const steps = decodedSteps(chain);
  if (steps.length === 0) return 0;
  const { end, searched } = dataEnd(bytes, stream);
  const region = (): ChunkSource => chunksOf(bytes.subarray(stream.start, end));
  if (mode.kind === 'bound' || (mode.kind === 'decrypt' && stream.id === null)) {
    const ratio = steps.reduce((r, s) => r * (MAX_RATIO[LONG_NAMES[s.name] ?? s.name] ?? 1), 1);
    budget.charge((end - stream.start) * ratio + steps.reduce((n, s) => n + 2 * s.predictorRow, 0));
    return searched;
  }
  if (mode.kind === 'plain') return searched + decodeChain(steps, region(), budget);
  const { num, gen } = stream.id!;
  const type = nameOf(index.resolve(stream.dict.get('Type')));
  if (type !== 'XRef' && type !== 'Metadata') {
    const decrypted = mode.decrypt(region(), num, gen);
    return searched + (decrypted === null ? 0 : decodeChain(steps, decrypted, budget));
  }
  // pdf.js reads cross-reference streams, and metadata under /EncryptMetadata false, as they are: both ways
  // are counted and the larger charged.
  let pulled = searched;
  const spent = [region(), mode.decrypt(region(), num, gen)].map((source) => {
    if (source === null) return 0;
    const trial = new ByteBudget(budget.remaining, MESSAGE);
    try {
      pulled += decodeChain(steps, source, trial);
    } catch (err) {
      if (err instanceof ContentTooLargeError) budget.overrun();
      throw err;
    }
    return trial.spent;
  });
  budget.charge(Math.max(...spent));
  return pulled;
}

/** A dictionary's values resolved (pdf.js resolves references as it reads), nested ones too. */
function resolved(dict: PdfDict, index: PdfIndex, depth = 2): PdfDict {
  return new Map(
    [...dict].map(([k, v]): [string, PdfValue] => {
      const value = index.resolve(v) ?? null;
      return [k, value instanceof Map && depth > 1 ? resolved(value, index, depth - 1) : value];
    }),
  );
}

/** The scans to run: as plain text always, and through each encryption the trailers name. */
function modesOf(index: PdfIndex): Mode[] {
  const modes = new Map<string, Mode>([['plain', { kind: 'plain' }]]);
  for (const trailer of index.trailers) {
    const encrypt = trailer.get('Encrypt');
    if (encrypt === undefined) continue;
    const dict = index.resolve(encrypt);
    // An encryption dictionary this scan cannot find: no stream's decryption can be reproduced.
    if (dict === undefined) modes.set('bound', { kind: 'bound' });
    if (!(dict instanceof Map)) continue;
    const ids = index.resolve(trailer.get('ID'));
    const first = Array.isArray(ids) ? index.resolve(ids[0]) : undefined;
    const fileId = first instanceof Uint8Array ? first : new Uint8Array(0);
    const encryption = resolved(dict, index, 3);
    const key = canonical([encryption, fileId]);
    if (modes.has(key)) continue;
    const decrypt = openWithoutPassword(encryption, fileId);
    if (decrypt !== 'locked') modes.set(key, { kind: 'decrypt', decrypt });
  }
  if (modes.size > 5)
    throw new UnsupportedContentError('The PDF has too many encryption dictionaries to be checked');
  return [...modes.values()];
}

/**
 * Refuses (422 CONTENT_TOO_LARGE, naming MAX_DOCUMENT_BYTES) a PDF whose streams decode to more than
 * `maxBytes` in total, each decoding stage counted, before pdf.js reads it; answers the bytes pdf.js should
 * read (images and embedded files disarmed, pdf-unread-streams.ts). The work is bounded too: the decoders
 * together may read the file 8 times over per way of reading it (streams can overlap).
 */
export function checkPdfStreams(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const index = indexPdf(bytes);
  const unread = new Set(index.streams.filter((stream) => isUnread(stream, index)));
  for (const mode of modesOf(index)) {
    const budget = new ByteBudget(maxBytes, MESSAGE);
    const maxPulled = 8 * bytes.length + (16 << 20);
    let pulled = 0;
    for (const stream of index.streams) {
      if (unread.has(stream)) continue;
      pulled += decodeStream(bytes, stream, index, mode, budget);
      if (pulled > maxPulled)
        throw new UnsupportedContentError("The PDF's streams overlap too much to be checked");
    }
  }
  if (unread.size === 0) return bytes;
  const copy = new Uint8Array(bytes);
  for (const stream of unread) disarm(copy, stream.dictStart, stream.start);
  return copy;
}
