import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { ChunkSource } from './filter-io.js';
import { PdfName, type PdfDict, type PdfValue } from './syntax.js';

/**
 * The standard security handler (ISO 32000 §7.6.3-4) as pdf.js 4.10 applies it (src/core/crypto.js) when it
 * opens a PDF without a password: the empty user password. A PDF that opens that way has encrypted streams
 * pdf.js will decrypt and inflate, so their size is checked decrypted: RC4 (V1/V2, R2-R4), AES-128 (V4
 * AESV2, with per-object keys and the 'sAlT' suffix) and AES-256 (V5 AESV3, R5 and R6: the file key
 * from /UE, algorithms 2.A and 2.B).
 */

/** Decrypts one object's stream, or null when pdf.js fails to read it (an unknown crypt method). */
export type StreamDecryptor = (source: ChunkSource, num: number, gen: number) => ChunkSource | null;

const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

const digest = (algorithm: string, ...parts: Uint8Array[]): Buffer => {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return h.digest();
};

/** RC4 over chunks, its state carried from one chunk to the next. */
function rc4(key: Uint8Array): (data: Uint8Array) => Uint8Array {
  const s = new Uint8Array(256).map((_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  let a = 0;
  let b = 0;
  return (data) => {
    const out = new Uint8Array(data.length);
    for (let n = 0; n < data.length; n++) {
      a = (a + 1) & 255;
      b = (b + s[a]!) & 255;
      [s[a], s[b]] = [s[b]!, s[a]!];
      out[n] = data[n]! ^ s[(s[a]! + s[b]!) & 255]!;
    }
    return out;
  };
}

/** A key of exactly `size` bytes: pdf.js's AES reads a shorter key as if padded with zeros. */
const sized = (key: Uint8Array, size: number): Buffer => {
  const out = Buffer.alloc(size);
  out.set(key.subarray(0, size));
  return out;
};

function rc4Source(source: ChunkSource, key: Uint8Array): ChunkSource {
  const cipher = rc4(key);
  return {
    next: () => {
      const chunk = source.next();
      return chunk === null ? null : cipher(chunk);
    },
  };
}

/** AES-CBC over chunks: the first 16 bytes are the IV; the padding at the end is left (16 bytes at most). */
function aesSource(source: ChunkSource, key: Uint8Array): ChunkSource {
  const algorithm = key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc';
  let iv = Buffer.alloc(0);
  let decipher: ReturnType<typeof createDecipheriv> | null = null;
  return {
    next: () => {
      for (;;) {
        const chunk = source.next();
        if (chunk === null) return null;
        if (decipher) return decipher.update(chunk);
        iv = Buffer.concat([iv, chunk]);
        if (iv.length < 16) continue;
        decipher = createDecipheriv(algorithm, key, iv.subarray(0, 16)).setAutoPadding(false);
        return decipher.update(iv.subarray(16));
      }
    },
  };
}

/** Algorithm 2.B (R6): SHA-256/384/512 rounds over AES-128 of the password, salt and (owner) user key. */
export function hashR6(
  password: Uint8Array,
  salt: Uint8Array,
  userKey: Uint8Array = new Uint8Array(0),
): Buffer {
  let k = digest('sha256', password, salt, userKey);
  let e = Buffer.alloc(1);
  for (let i = 0; i < 64 || e.at(-1)! > i - 32; i++) {
    const block = Buffer.concat([password, k, userKey]);
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    e = Buffer.concat([cipher.update(Buffer.concat(new Array<Buffer>(64).fill(block))), cipher.final()]);
    const sum = e.subarray(0, 16).reduce((a, b) => a + b, 0);
    k = digest(['sha256', 'sha384', 'sha512'][sum % 3]!, e);
  }
  return k.subarray(0, 32);
}

const bytesOf = (value: PdfValue | undefined): Uint8Array =>
  value instanceof Uint8Array ? value : new Uint8Array(0);
const equal = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The file key for the empty user password, R2-R4 (algorithms 2, 4 and 5); null when it does not open. */
function keyR2to4(dict: PdfDict, fileId: Uint8Array, revision: number, keyBytes: number): Uint8Array | null {
  const owner = bytesOf(dict.get('O')).subarray(0, 32);
  const user = bytesOf(dict.get('U')).subarray(0, 32);
  const flags = Number(dict.get('P'));
  const p = Uint8Array.of(flags & 0xff, (flags >> 8) & 0xff, (flags >> 16) & 0xff, (flags >>> 24) & 0xff);
  const encryptMetadata = [4, 5].includes(Number(dict.get('V'))) && dict.get('EncryptMetadata') !== false;
  const noMetadata =
    revision >= 4 && !encryptMetadata ? Uint8Array.of(255, 255, 255, 255) : new Uint8Array(0);
  let hash: Uint8Array = digest('md5', PAD, owner, p, fileId, noMetadata);
  if (revision >= 3) for (let i = 0; i < 50; i++) hash = digest('md5', hash.subarray(0, keyBytes));
  const key = hash.subarray(0, keyBytes);
  let check: Uint8Array;
  if (revision >= 3) {
    check = rc4(key)(digest('md5', PAD, fileId));
    for (let j = 1; j <= 19; j++) check = rc4(key.map((k) => k ^ j))(check);
  } else check = rc4(key)(PAD);
  return check.every((c, i) => user[i] === c) ? key : null;
}

/** The file key for the empty user password, R5 and R6 (algorithm 2.A): /UE decrypted. */
function keyV5(dict: PdfDict, revision: number): Uint8Array | null {
  const u = bytesOf(dict.get('U'));
  const empty = new Uint8Array(0);
  const hash = (salt: Uint8Array) => (revision === 6 ? hashR6(empty, salt) : digest('sha256', salt));
  if (!equal(hash(u.subarray(32, 40)), u.subarray(0, 32))) return null;
  const decipher = createDecipheriv('aes-256-cbc', hash(u.subarray(40, 48)), Buffer.alloc(16));
  return decipher.setAutoPadding(false).update(bytesOf(dict.get('UE')));
}

/**
 * The decryptor of a PDF's streams when pdf.js opens it without a password; 'locked' when pdf.js cannot
 * open it that way (a user password is set, or the handler is one pdf.js refuses), so no stream of it is
 * ever decrypted. `dict` is the encryption dictionary with its references resolved.
 */
export function openWithoutPassword(dict: PdfDict, fileId: Uint8Array): StreamDecryptor | 'locked' {
  const filter = dict.get('Filter');
  const algorithm = dict.get('V');
  if (!(filter instanceof PdfName) || filter.name !== 'Standard' || ![1, 2, 4, 5].includes(Number(algorithm)))
    return 'locked';
  const cf = dict.get('CF');
  const filters = cf instanceof Map ? cf : null;
  const stmf = dict.get('StmF');
  let keyLength = dict.get('Length');
  if (!keyLength) {
    if (Number(algorithm) <= 3) keyLength = 40;
    else if (filters && stmf instanceof PdfName) {
      const handler = filters.get(stmf.name);
      keyLength = (handler instanceof Map && handler.get('Length')) || 128;
      if (Number(keyLength) < 40) keyLength = Number(keyLength) << 3;
    }
  }
  if (typeof keyLength !== 'number' || !Number.isInteger(keyLength) || keyLength < 40 || keyLength % 8 !== 0)
    return 'locked';
  const revision = Number(dict.get('R'));
  const key = algorithm === 5 ? keyV5(dict, revision) : keyR2to4(dict, fileId, revision, keyLength >> 3);
  if (!key) return 'locked';
  const objectKey = (num: number, gen: number, aes: boolean): Uint8Array =>
    digest(
      'md5',
      key,
      Uint8Array.of(num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff),
      aes ? Buffer.from('sAlT') : new Uint8Array(0),
    ).subarray(0, Math.min(key.length + 5, 16));
  if (algorithm !== 4 && algorithm !== 5)
    return (source, num, gen) => rc4Source(source, objectKey(num, gen, false));
  const name = stmf instanceof PdfName ? stmf.name : 'Identity';
  return (source, num, gen) => {
    if (!filters) return null; // pdf.js reads /CF without checking it is there, and fails
    const method = (filters.get(name) as PdfDict | undefined)?.get?.('CFM');
    if (!(method instanceof PdfName) || method.name === 'None') return source;
    if (method.name === 'V2') return rc4Source(source, objectKey(num, gen, false));
    if (method.name === 'AESV2') return aesSource(source, sized(objectKey(num, gen, true), 16));
    if (method.name === 'AESV3') return aesSource(source, sized(key, 32));
    return null;
  };
}
