import type { PdfIndex, StreamObject } from './objects.js';
import { PdfName, PdfRef, type PdfValue, isWhite } from './syntax.js';

/**
 * Streams the text layer never needs, images and embedded files, are not inflated by the size check: a
 * page of screenshots printed by Chromium inflates to 8 MB a screenshot, which would count against
 * MAX_DOCUMENT_BYTES for pixels nobody reads. They are disarmed instead: in the copy pdf.js reads, every
 * name in their dictionary that would select an inflating filter is overwritten with X's (same length, so
 * every offset holds). pdf.js passes a filter it does not know through unchanged, so such a stream can
 * never inflate, even when a hostile file labels a content stream /Subtype /Image to slip it past the
 * count. A Type 3 glyph drawn from a disarmed image loses its picture, not its text.
 */

const INFLATING = new Set([
  'FlateDecode',
  'Fl',
  'LZWDecode',
  'LZW',
  'RunLengthDecode',
  'RL',
  'ASCII85Decode',
  'A85',
  'ASCIIHexDecode',
  'AHx',
]);

const nameOf = (v: PdfValue | undefined): string | null => (v instanceof PdfName ? v.name : null);

/**
 * Whether a stream is left out of the count and disarmed: an image or an embedded file whose filters are
 * written in its own dictionary (a filter given by reference cannot be overwritten there, so it is counted).
 */
export function isUnread(stream: StreamObject, index: PdfIndex): boolean {
  const { dict } = stream;
  const kind =
    nameOf(index.resolve(dict.get('Subtype'))) === 'Image' ||
    nameOf(index.resolve(dict.get('Type'))) === 'EmbeddedFile';
  if (!kind) return false;
  const filter = dict.has('F') ? dict.get('F') : dict.get('Filter');
  return !(filter instanceof PdfRef) && !(Array.isArray(filter) && filter.some((f) => f instanceof PdfRef));
}

const REGULAR = (c: number | undefined): boolean =>
  c !== undefined && !isWhite(c) && !'()<>[]{}/%'.includes(String.fromCharCode(c));
const hex = (c: number): number => parseInt(String.fromCharCode(c), 16);

/**
 * Overwrites, in `copy`, every name between `from` and `to` that pdf.js would read as an inflating filter
 * (`#xx` escapes decoded). Read from the raw bytes, not from a parse, so no tokenizing difference between
 * this check and pdf.js can hide one.
 */
export function disarm(copy: Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (copy[i] !== 0x2f) continue;
    let j = i + 1;
    let name = '';
    while (j < copy.length && REGULAR(copy[j])) {
      const c = copy[j]!;
      if (c === 0x23 && !Number.isNaN(hex(copy[j + 1] ?? 0)) && !Number.isNaN(hex(copy[j + 2] ?? 0))) {
        name += String.fromCharCode(hex(copy[j + 1]!) * 16 + hex(copy[j + 2]!));
        j += 3;
      } else {
        name += String.fromCharCode(c);
        j++;
      }
    }
    if (INFLATING.has(name)) copy.fill(0x58, i + 1, j);
    i = j - 1;
  }
}
