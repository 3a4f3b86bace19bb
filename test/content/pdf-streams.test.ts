import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { constants, deflateRawSync, deflateSync, inflateSync } from 'node:zlib';
import { checkPdfStreams } from '../../src/content/documents/pdf-size/check.js';
import { pdfToHtml } from '../../src/content/documents/pdf.js';
import { ContentTooLargeError, UnsupportedContentError } from '../../src/errors.js';
import { encryptedPdf } from '../fixtures/files/encrypted-pdf.js';
import { type Security, security } from '../fixtures/files/pdf-encryption.js';
import { pagesPdf, textPage, writePdf, zerosDeflate } from '../fixtures/files/pdf-files.js';

/**
 * The size check pdf.js's input goes through (src/content/pdf-streams.ts): what each stream decodes to,
 * the way pdf.js decodes it, summed over the file and held to MAX_DOCUMENT_BYTES.
 */

const MB = 1024 * 1024;
const tooLarge = (err: unknown): boolean =>
  err instanceof ContentTooLargeError && /MAX_DOCUMENT_BYTES/.test(err.message);

/** One page whose content stream is `data` under `filter`; the page tree and font as pagesPdf writes them. */
const onePage = (data: Buffer, filter: string): Buffer => pagesPdf([data], { filter });

/** A zlib stream: header, the raw deflate `body` (ending byte-aligned), an empty last block, no checksum. */
const zlibOf = (...body: Buffer[]): Buffer =>
  Buffer.concat([Buffer.from([0x78, 0x9c]), ...body, Buffer.from([0x03, 0x00, 0, 0, 0, 0])]);
const repeated = (block: Buffer, times: number): Buffer[] => new Array<Buffer>(times).fill(block);
/** 1 MiB of zeros as raw deflate, flushed to a byte: repeat it for more. */
const MIB_OF_ZEROS = deflateRawSync(Buffer.alloc(MB), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });

/** Bits written least significant first, Huffman codes most significant first (RFC 1951 §3.1.1). */
class Bits {
  private bytes: number[] = [];
  private bit = 0;
  put(value: number, count: number): this {
    for (let i = 0; i < count; i++) {
      if (this.bit % 8 === 0) this.bytes.push(0);
      this.bytes[this.bytes.length - 1]! |= ((value >> i) & 1) << (this.bit % 8);
      this.bit++;
    }
    return this;
  }
  code(value: number, count: number): this {
    for (let i = count - 1; i >= 0; i--) this.put((value >> i) & 1, 1);
    return this;
  }
  /** An empty stored block: the stream continues on a byte boundary. */
  flush(): Buffer {
    this.put(0, 3);
    this.bit = Math.ceil(this.bit / 8) * 8;
    return Buffer.concat([Buffer.from(this.bytes), Buffer.from([0, 0, 0xff, 0xff])]);
  }
}

/** LZW codes for `mib` MiB of zeros as pdf.js decodes them: ever longer runs, then the longest repeated. */
function lzwZeros(mib: number): Buffer {
  const out: number[] = [];
  let cached = 0;
  let bits = 0;
  let width = 9;
  let next = 258;
  const emit = (code: number): void => {
    cached = (cached << width) | code;
    bits += width;
    while (bits >= 8) {
      bits -= 8;
      out.push((cached >>> bits) & 0xff);
    }
    cached &= (1 << bits) - 1;
  };
  const grow = (): void => {
    next++;
    const n = next + 1; // EarlyChange 1
    if ((n & (n - 1)) === 0) width = Math.min(Math.log2(n) + 1, 12);
  };
  emit(0);
  let produced = 1;
  while (next < 4096) {
    produced += next - 256; // code k holds k - 256 zeros
    emit(next);
    grow();
  }
  for (; produced < mib * MB; produced += 3839) {
    emit(4095);
    grow();
  }
  emit(257);
  if (bits > 0) out.push((cached << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

describe('PDF stream size check', () => {
  test('a text PDF passes, its streams counted to the byte as they inflate', () => {
    const pages = [textPage('Alpha', 45), textPage('Beta', 45)];
    const total = pages.reduce((n, p) => n + p.length, 0);
    const pdf = pagesPdf(pages.map((p) => deflateSync(p)));
    assert.equal(checkPdfStreams(pdf, total), pdf);
    assert.throws(() => checkPdfStreams(pdf, total - 1), tooLarge);
  });

  test('a stream that inflates to 1 GiB stops at the limit', () => {
    assert.throws(() => checkPdfStreams(pagesPdf([zerosDeflate(1024)]), 24 * MB), tooLarge);
  });

  for (const kind of ['rc4-40', 'rc4-128', 'aes-128', 'aes-256'] as Security[]) {
    test(`${kind}: opened without a password, decrypted, counted exactly, read by pdf.js`, async () => {
      const pages = [textPage('Alpha', 45), textPage('Beta', 45)];
      const total = pages.reduce((n, p) => n + p.length, 0);
      const pdf = pagesPdf(
        pages.map((p) => deflateSync(p)),
        security(kind),
      );
      assert.doesNotThrow(() => checkPdfStreams(pdf, total));
      assert.throws(() => checkPdfStreams(pdf, total - 1), tooLarge);
      const read = await pdfToHtml(pdf, 10, total);
      assert.match(read.html, /<h1>Alpha<\/h1>/);
      assert.throws(() => checkPdfStreams(pagesPdf([zerosDeflate(64)], security(kind)), 16 * MB), tooLarge);
    });
  }

  test('a PDF with a user password is not decrypted: pdf.js cannot open it either', async () => {
    const locked = encryptedPdf();
    assert.equal(checkPdfStreams(locked, MB), locked);
    await assert.rejects(pdfToHtml(locked, 10, MB), (err: Error) => /needs a password/.test(err.message));
  });

  test('inflation zlib refuses but pdf.js performs (a distance before the start) is counted', () => {
    // A first block copying 258 bytes from 1 byte before the start: zlib stops there, pdf.js reads zeros.
    const bad = new Bits().put(0, 1).put(1, 2).code(0b11000101, 8).code(0, 5).code(0, 7).flush();
    const stream = zlibOf(bad, ...repeated(MIB_OF_ZEROS, 64));
    assert.throws(() => inflateSync(stream), /invalid distance too far back/);
    assert.throws(() => checkPdfStreams(onePage(stream, '/FlateDecode'), 16 * MB), tooLarge);
  });

  test('LZW, RunLength and ASCII85 expand too; every stage of a chain is counted', () => {
    // ISO 32000's example: 10 bytes from codes 256 45 258 258 65 259 66 257.
    const sample = onePage(Buffer.from('800b6050220c0c8501', 'hex'), '/LZWDecode');
    assert.doesNotThrow(() => checkPdfStreams(sample, 10));
    assert.throws(() => checkPdfStreams(sample, 9), tooLarge);
    const lzw = lzwZeros(64);
    assert.ok(lzw.length < 40_000, `${lzw.length} bytes of LZW`);
    assert.throws(() => checkPdfStreams(onePage(lzw, '/LZWDecode'), 16 * MB), tooLarge);
    const runs = Buffer.alloc(2 * MB);
    for (let i = 0; i < runs.length; i += 2) runs[i] = 129; // 128 copies of the next byte
    assert.throws(() => checkPdfStreams(onePage(runs, '/RunLengthDecode'), 16 * MB), tooLarge);
    const zs = Buffer.from('z'.repeat(5 * MB) + '~>');
    assert.throws(() => checkPdfStreams(onePage(zs, '/ASCII85Decode'), 16 * MB), tooLarge);
    const text = textPage('Chained', 40);
    const deflated = deflateSync(text);
    const hex = Buffer.from(deflated.toString('hex') + '>');
    const pdf = onePage(hex, '[/ASCIIHexDecode /Fl]');
    assert.doesNotThrow(() => checkPdfStreams(pdf, deflated.length + text.length));
    assert.throws(() => checkPdfStreams(pdf, deflated.length + text.length - 1), tooLarge);
  });

  test("a predictor's row, sized by /Columns before any data is read, is counted", () => {
    const pdf = writePdf([
      '<< /Type /Catalog >>',
      {
        dict: '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Colors 1 /Columns 100000000 >>',
        data: deflateSync(Buffer.from('x')),
      },
    ]);
    assert.throws(() => checkPdfStreams(pdf, 24 * MB), tooLarge);
  });

  test("streams found however pdf.js could reach them: inside another's data, behind an indirect /Length", () => {
    const hidden = Buffer.concat([
      Buffer.from('9 0 obj\n<< /Filter /FlateDecode >>\nstream\n'),
      zerosDeflate(64),
      Buffer.from('\nendstream\nendobj\n'),
    ]);
    const nested = writePdf(['<< /Type /Catalog >>', { dict: '/Type /EmbeddedThing', data: hidden }]);
    assert.throws(() => checkPdfStreams(nested, 16 * MB), tooLarge);
    // A stored block saying "endstream" early; the real length is an object this check may not be able to read.
    const decoy = Buffer.from([0, 11, 0, 0xf4, 0xff, ...Buffer.from('\nendstream\n')]);
    const data = zlibOf(decoy, ...repeated(MIB_OF_ZEROS, 64));
    const pdf = Buffer.concat([
      Buffer.from(
        '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n2 0 obj << /Filter /FlateDecode /Length 3 0 R >>\nstream\n',
      ),
      data,
      Buffer.from(`\nendstream\nendobj\n3 0 obj ${data.length} endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`),
    ]);
    assert.throws(() => checkPdfStreams(pdf, 16 * MB), tooLarge);
  });

  test('images and embedded files are not inflated, and are disarmed so pdf.js cannot inflate them', async () => {
    const image =
      '/Type /XObject /Subtype /Image /Width 4096 /Height 4096 /ColorSpace /DeviceGray /BitsPerComponent 8';
    const pdf = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>',
      { dict: `${image} /Filter /Fl#61teDecode`, data: zerosDeflate(64) },
      // A content stream that calls itself an image: disarmed too, so pdf.js reads its bytes as they are.
      { dict: '/Subtype /Image /Filter [/FlateDecode]', data: zerosDeflate(64) },
      { dict: '/Type /EmbeddedFile /Filter /FlateDecode', data: zerosDeflate(64) },
    ]);
    const checked = checkPdfStreams(pdf, MB);
    const text = Buffer.from(checked).toString('latin1');
    assert.doesNotMatch(text, /FlateDecode|Fl#61teDecode/);
    assert.match(text, /\/Filter \/XXXXXXXXXXXXX \/Length/);
    assert.equal(checked.length, pdf.length);
    const read = await pdfToHtml(pdf, 10, MB);
    assert.equal(read.numPages, 1);
  });

  test('a filter given by a reference the scan cannot read is refused, not guessed', () => {
    const pdf = writePdf(['<< /Type /Catalog >>', { dict: '/Filter 7 0 R', data: zerosDeflate(1) }]);
    assert.throws(() => checkPdfStreams(pdf, 24 * MB), UnsupportedContentError);
  });
});
