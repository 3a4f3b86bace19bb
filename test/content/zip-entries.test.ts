import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ByteBudget } from '../../src/content/documents/byte-budget.js';
import { officeToHtml } from '../../src/content/documents/office.js';
import { unzipCounted } from '../../src/content/documents/zip-entries.js';
import { ContentTooLargeError, UnsupportedContentError } from '../../src/errors.js';
import { docx } from '../fixtures/files/office.js';
import { deflated, lyingDocx, stored, writeZip } from '../fixtures/files/zip-files.js';

/** Office files' zip entries, inflated through a budget of bytes actually produced (src/content/zip-entries.ts). */

const MB = 1024 * 1024;
const tooLarge = (err: unknown): boolean =>
  err instanceof ContentTooLargeError && /MAX_DOCUMENT_BYTES/.test(err.message);
const all = (): boolean => true;

describe('zip entries through a byte budget', () => {
  test('an entry is charged what it inflates to, not what its headers claim', async () => {
    const lying = lyingDocx(64);
    assert.throws(() => unzipCounted(lying, new ByteBudget(16 * MB, 'The file unpacks'), all), tooLarge);
    await assert.rejects(officeToHtml(lying, 'docx', 16 * MB), tooLarge);
  });

  test('the budget is summed over entries, stored ones included', () => {
    const entries = Array.from({ length: 20 }, (_, i) => stored(`part${i}.xml`, Buffer.alloc(MB, 0x20)));
    const zip = writeZip(entries);
    assert.throws(() => unzipCounted(zip, new ByteBudget(16 * MB, 'The file unpacks'), all), tooLarge);
    const budget = new ByteBudget(20 * MB, 'The file unpacks');
    assert.equal(Object.keys(unzipCounted(zip, budget, all)).length, 20);
    assert.equal(budget.spent, 20 * MB);
  });

  test('sheets and slides inflate only their XML; Word inflates every part mammoth may read', async () => {
    const bomb = deflated('ppt/media/image1.bin', Buffer.alloc(64 * MB));
    const slides = writeZip([
      deflated('ppt/presentation.xml', Buffer.from('<p:presentation/>')),
      deflated(
        'ppt/slides/slide1.xml',
        Buffer.from(
          '<p:sld xmlns:a="a" xmlns:p="p"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Hello</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>',
        ),
      ),
      bomb,
    ]);
    assert.match((await officeToHtml(slides, 'pptx', MB)).html, /Hello/);
    await assert.rejects(
      officeToHtml(writeZip([deflated('word/media/image1.bin', Buffer.alloc(64 * MB))]), 'docx', 16 * MB),
      tooLarge,
    );
    const read = await officeToHtml(docx(), 'docx', MB);
    assert.match(read.html, /<h1>Price list<\/h1>/);
  });

  test('damaged or encrypted entries are a 422 naming the reason', () => {
    const budget = (): ByteBudget => new ByteBudget(MB, 'The file unpacks');
    const entry = deflated('word/document.xml', Buffer.from('<w:document/>'.repeat(100)));
    const truncated = writeZip([{ ...entry, data: entry.data.subarray(0, 10) }]);
    assert.throws(() => unzipCounted(truncated, budget(), all), UnsupportedContentError);
    const zip = writeZip([entry]);
    zip.writeUInt16LE(1, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 8); // the "encrypted" flag
    assert.throws(() => unzipCounted(zip, budget(), all), /encrypted/);
    assert.throws(() => unzipCounted(Buffer.from('not a zip'), budget(), all), /no zip directory/);
  });
});
