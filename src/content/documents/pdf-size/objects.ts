import { UnsupportedContentError } from '../../../errors.js';
import {
  END_OF_FILE,
  PdfCommand,
  type PdfDict,
  PdfLexer,
  PdfName,
  PdfParser,
  PdfRef,
  type PdfValue,
  canonical,
  isWhite,
} from './syntax.js';

/**
 * Every object a PDF reader could reach, found by scanning the whole file for `N G obj` rather than by
 * following its cross-reference table: a table can point anywhere (inside another stream's data, at an
 * object a later one shadows), and pdf.js rebuilds a broken table by the same kind of scan. Streams nested
 * in other streams' data are found too.
 */

export interface StreamObject {
  /** Object number and generation (for per-object decryption keys); null when the header reads oddly. */
  id: { num: number; gen: number } | null;
  dict: PdfDict;
  /** Where the dictionary's text starts (just after `obj`). */
  dictStart: number;
  /** Where the data starts: after the end of the `stream` keyword's line. */
  start: number;
}

export interface PdfIndex {
  streams: StreamObject[];
  /** Trailer dictionaries: `trailer << >>` and cross-reference stream dictionaries, wherever they are. */
  trailers: PdfDict[];
  /** The value of an indirect reference, undefined when it is not defined in the file's own text (an object
   * stream holds it) or is defined twice with different values. Other values are returned as they are. */
  resolve(value: PdfValue | undefined): PdfValue | undefined;
}

const DIGIT = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
/** White space or a delimiter: where a token ends. */
const ENDS_TOKEN = (c: number | undefined): boolean =>
  c === undefined || isWhite(c) || '()<>[]{}/%'.includes(String.fromCharCode(c));

/** `N G` read backwards from just before `obj`; null when they are not two integers. */
function objectId(bytes: Uint8Array, at: number): { num: number; gen: number } | null {
  let i = at - 1;
  const integer = (): number | null => {
    while (i >= 0 && isWhite(bytes[i]!)) i--;
    const end = i;
    while (i >= 0 && DIGIT(bytes[i])) i--;
    if (i === end) return null;
    return Number(Buffer.from(bytes.subarray(i + 1, end + 1)).toString('latin1'));
  };
  const gen = integer();
  if (gen === null || (i >= 0 && !isWhite(bytes[i]!))) return null;
  const num = integer();
  return num === null || (i >= 0 && !ENDS_TOKEN(bytes[i])) ? null : { num, gen };
}

/**
 * Indexes `bytes`. The lexers' total work is bounded (objects that overlap each other's text could make it
 * quadratic): past 4 reads of the file a PDF is refused as one that cannot be checked.
 */
export function indexPdf(bytes: Uint8Array): PdfIndex {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const budget = 4 * bytes.length + (1 << 20);
  let work = 0;
  const spent = (lexer: PdfLexer): void => {
    work += lexer.read;
    lexer.read = 0;
    if (work > budget) throw new UnsupportedContentError("The PDF's objects overlap too much to be checked");
  };
  const parse = (at: number): { parser: PdfParser; value: PdfValue | typeof END_OF_FILE } => {
    const parser = new PdfParser(new PdfLexer(bytes, at));
    const value = parser.object();
    spent(parser.lexer);
    return { parser, value };
  };
  const streams: StreamObject[] = [];
  const trailers: PdfDict[] = [];
  const definitions = new Map<number, { gen: number; at: number }[]>();
  for (let at = text.indexOf('obj'); at >= 0; at = text.indexOf('obj', at + 3)) {
    const before = at > 0 ? bytes[at - 1] : undefined;
    if (!ENDS_TOKEN(bytes[at + 3]) || !(before === undefined || ENDS_TOKEN(before) || DIGIT(before)))
      continue;
    const id = objectId(bytes, at);
    if (id) {
      const list = definitions.get(id.num) ?? [];
      list.push({ gen: id.gen, at: at + 3 });
      definitions.set(id.num, list);
    }
    const lexer = new PdfLexer(bytes, at + 3);
    lexer.skipSpace();
    spent(lexer);
    if (bytes[lexer.pos] !== 0x3c || bytes[lexer.pos + 1] !== 0x3c) continue;
    const { parser, value } = parse(at + 3);
    const next = parser.token();
    if (!(value instanceof Map) || !(next instanceof PdfCommand) || next.command !== 'stream') continue;
    streams.push({ id, dict: value, dictStart: at + 3, start: parser.lexer.streamStart() });
    spent(parser.lexer);
    const type = value.get('Type');
    if (type instanceof PdfName && type.name === 'XRef') trailers.push(value);
  }
  for (let at = text.indexOf('trailer'); at >= 0; at = text.indexOf('trailer', at + 7)) {
    const { value } = parse(at + 7);
    if (value instanceof Map) trailers.push(value);
  }
  const cache = new Map<string, PdfValue | undefined>();
  const resolve = (value: PdfValue | undefined): PdfValue | undefined => {
    if (!(value instanceof PdfRef)) return value;
    const key = `${value.num} ${value.gen}`;
    if (!cache.has(key)) {
      const found = (definitions.get(value.num) ?? [])
        .filter((d) => d.gen === value.gen)
        .map((d) => parse(d.at).value)
        .filter((v): v is PdfValue => v !== END_OF_FILE);
      const agreed = new Set(found.map(canonical)).size === 1;
      cache.set(key, agreed ? found[0] : undefined);
    }
    return cache.get(key);
  };
  return { streams, trailers, resolve };
}
