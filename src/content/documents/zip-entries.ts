import { inflateRawSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { UnsupportedContentError } from '../../errors.js';
import type { ByteBudget } from './byte-budget.js';

/**
 * A zip's entries (Word, Excel and PowerPoint files are zips) read through a byte budget: each entry is
 * inflated by us with its output capped at what the budget has left, so the sizes its headers claim are
 * never trusted (a header may say 1,000 bytes of an entry that inflates to 1 GiB).
 */

interface Entry {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  localHeader: number;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const broken = (why: string): UnsupportedContentError =>
  new UnsupportedContentError(`The file could not be unpacked: ${why}`);

/** Where the central directory starts and how many entries it lists (zip64 records when the zip has them). */
function centralDirectory(view: DataView): { offset: number; count: number } {
  const last = view.byteLength - 22;
  for (let at = last; at >= Math.max(0, last - 65535); at--) {
    if (view.getUint32(at, true) !== EOCD) continue;
    let count = view.getUint16(at + 10, true);
    let offset = view.getUint32(at + 16, true);
    const locator = at - 20;
    if ((count === 0xffff || offset === 0xffffffff) && locator >= 0) {
      if (view.getUint32(locator, true) === EOCD64_LOCATOR) {
        const record = Number(view.getBigUint64(locator + 8, true));
        if (record + 56 > view.byteLength || view.getUint32(record, true) !== EOCD64)
          throw broken('bad zip64 record');
        count = Number(view.getBigUint64(record + 32, true));
        offset = Number(view.getBigUint64(record + 48, true));
      }
    }
    return { offset, count };
  }
  throw broken('no zip directory');
}

/** The entries the central directory lists, with the zip64 extra field read where a size says 0xffffffff. */
function entriesOf(bytes: Uint8Array): Entry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { offset, count } = centralDirectory(view);
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw broken('bad directory entry');
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let compressedSize = view.getUint32(at + 20, true);
    let localHeader = view.getUint32(at + 42, true);
    const name = Buffer.from(bytes.subarray(at + 46, at + 46 + nameLength)).toString('utf8');
    const extra = at + 46 + nameLength;
    for (let e = extra; e + 4 <= Math.min(extra + extraLength, bytes.length);) {
      const id = view.getUint16(e, true);
      const size = view.getUint16(e + 2, true);
      if (id === 1) {
        // Zip64: the 64-bit values of the fields that say 0xffffffff, in this order.
        let field = e + 4;
        if (view.getUint32(at + 24, true) === 0xffffffff) field += 8;
        if (compressedSize === 0xffffffff && field + 8 <= bytes.length) {
          compressedSize = Number(view.getBigUint64(field, true));
          field += 8;
        }
        if (localHeader === 0xffffffff && field + 8 <= bytes.length)
          localHeader = Number(view.getBigUint64(field, true));
      }
      e += 4 + size;
    }
    entries.push({
      name,
      method: view.getUint16(at + 10, true),
      encrypted: (view.getUint16(at + 8, true) & 1) === 1,
      compressedSize,
      localHeader,
    });
    at = extra + extraLength + commentLength;
  }
  return entries;
}

/** An entry's bytes as stored (the local header's own name and extra field lengths say where they start). */
function storedBytes(bytes: Uint8Array, entry: Entry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeader;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL)
    throw broken(`bad header of ${entry.name}`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  return bytes.subarray(start, start + entry.compressedSize);
}

/** One entry inflated, its output capped at the budget's remainder and then charged to it. */
function inflateEntry(bytes: Uint8Array, entry: Entry, budget: ByteBudget): Uint8Array {
  if (entry.encrypted) throw new UnsupportedContentError('The file is encrypted (it needs a password)');
  const stored = storedBytes(bytes, entry);
  let out: Uint8Array;
  if (entry.method === 0) {
    out = stored.slice();
  } else if (entry.method === 8) {
    try {
      // maxOutputLength stops zlib as soon as the output passes what the budget has left.
      out = inflateRawSync(stored, { maxOutputLength: Math.max(1, budget.remaining) });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget.overrun();
      throw broken(`${entry.name}: ${(err as Error).message}`);
    }
  } else {
    throw broken(`${entry.name} uses compression method ${entry.method}`);
  }
  budget.charge(out.length);
  return out;
}

/**
 * The entries whose names `wanted` accepts, inflated through `budget` (summed over them); other entries are
 * not inflated at all. An entry the directory lists twice is inflated (and charged) twice; the last wins.
 */
export function unzipCounted(
  bytes: Uint8Array,
  budget: ByteBudget,
  wanted: (name: string) => boolean,
): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of entriesOf(bytes)) {
    if (entry.name.endsWith('/') || !wanted(entry.name)) continue;
    files[entry.name] = inflateEntry(bytes, entry, budget);
  }
  return files;
}

/**
 * Entries as a zip without compression, for a reader that opens the zip itself (mammoth): it reads exactly
 * the bytes checked here, and has nothing left to inflate.
 */
export const storedZip = (files: Record<string, Uint8Array>): Uint8Array => zipSync(files, { level: 0 });
