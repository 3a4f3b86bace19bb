import type { Element } from 'domhandler';
import { findAll, findOne, getAttributeValue, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { UnsupportedContentError } from '../../errors.js';
import { ByteBudget } from './byte-budget.js';
import { storedZip, unzipCounted } from './zip-entries.js';

export type OfficeKind = 'docx' | 'xlsx' | 'pptx';

/** An Office file as HTML for the page pipeline. */
export interface OfficeConversion {
  html: string;
  mediaType: string;
  title: string | null;
  author: string | null;
  numPages: number | null;
  warning: string | null;
}

const MEDIA_TYPES: Record<OfficeKind, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};
/** Rows of one sheet kept at most; the rest is named in the warning. */
const MAX_ROWS = 1000;

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Which Office file the bytes are (a zip holding its main part), by media type or content; null otherwise. */
export function officeKindOf(bytes: Uint8Array, contentType: string | undefined): OfficeKind | null {
  for (const [kind, type] of Object.entries(MEDIA_TYPES))
    if (contentType?.includes(type)) return kind as OfficeKind;
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 3 || bytes[3] !== 4)
    return null;
  const head = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 65536))).toString('latin1');
  if (head.includes('word/')) return 'docx';
  if (head.includes('xl/')) return 'xlsx';
  if (head.includes('ppt/')) return 'pptx';
  return null;
}

/**
 * The parts a converter reads, inflated through the document's byte budget (MAX_DOCUMENT_BYTES): for Word
 * every part (mammoth reads styles, numbering and images as it needs them), for sheets and slides the XML.
 */
function unzip(bytes: Uint8Array, kind: OfficeKind, maxBytes: number): Record<string, Uint8Array> {
  const budget = new ByteBudget(maxBytes, `The ${kind.toUpperCase()} file unpacks`);
  return unzipCounted(bytes, budget, kind === 'docx' ? () => true : (name) => /\.(xml|rels)$/.test(name));
}

const xml = (files: Record<string, Uint8Array>, name: string) => {
  const file = files[name];
  return file ? parseDocument(Buffer.from(file).toString('utf8'), { xmlMode: true }) : null;
};
const byTag = (root: Parameters<typeof findAll>[1], tag: string): Element[] =>
  findAll((e) => e.name === tag, root);

/** docProps/core.xml: title and author. */
function coreProperties(files: Record<string, Uint8Array>): { title: string | null; author: string | null } {
  const core = xml(files, 'docProps/core.xml');
  const text = (tag: string): string | null => {
    const el = core ? findOne((e) => e.name === tag, core.children) : null;
    const value = el ? textContent(el).trim() : '';
    return value === '' ? null : value;
  };
  return { title: text('dc:title'), author: text('dc:creator') };
}

/** A column reference's index: A → 0, AB → 27. */
const columnOf = (ref: string): number =>
  [...(/^[A-Z]+/.exec(ref)?.[0] ?? 'A')].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) - 1;

/** Each sheet a table under its name, the first row as the header; at most MAX_ROWS rows a sheet. */
function xlsxToHtml(files: Record<string, Uint8Array>): { body: string; warning: string | null } {
  const shared = xml(files, 'xl/sharedStrings.xml');
  const strings = shared
    ? byTag(shared.children, 'si').map((si) => byTag([si], 't').map(textContent).join(''))
    : [];
  const workbook = xml(files, 'xl/workbook.xml');
  const rels = xml(files, 'xl/_rels/workbook.xml.rels');
  const targets = new Map(
    (rels ? byTag(rels.children, 'Relationship') : []).map((r) => [
      getAttributeValue(r, 'Id'),
      getAttributeValue(r, 'Target'),
    ]),
  );
  const parts: string[] = [];
  const cut: string[] = [];
  for (const sheet of workbook ? byTag(workbook.children, 'sheet') : []) {
    const name = getAttributeValue(sheet, 'name') ?? 'Sheet';
    const target = targets.get(getAttributeValue(sheet, 'r:id'))?.replace(/^\/?(xl\/)?/, 'xl/');
    const doc = target ? xml(files, target) : null;
    if (!doc) continue;
    const rows: string[][] = [];
    const all = byTag(doc.children, 'row');
    for (const row of all.slice(0, MAX_ROWS)) {
      const cells: string[] = [];
      for (const c of byTag([row], 'c')) {
        const type = getAttributeValue(c, 't');
        const v = findOne((e) => e.name === 'v', c.children);
        const raw =
          type === 'inlineStr' ? byTag([c], 't').map(textContent).join('') : v ? textContent(v) : '';
        const value =
          type === 's' ? (strings[Number(raw)] ?? '') : type === 'b' ? (raw === '1' ? 'TRUE' : 'FALSE') : raw;
        cells[columnOf(getAttributeValue(c, 'r') ?? '')] = value;
      }
      if (cells.some((v) => v !== undefined && v.trim() !== '')) rows.push(Array.from(cells, (v) => v ?? ''));
    }
    if (all.length > MAX_ROWS) cut.push(`${name}: ${MAX_ROWS} of ${all.length} rows`);
    const width = Math.max(0, ...rows.map((r) => r.length));
    const line = (r: string[], tag: string) =>
      `<tr>${Array.from({ length: width }, (_, i) => `<${tag}>${escape(r[i] ?? '')}</${tag}>`).join('')}</tr>`;
    const [header, ...body] = rows;
    parts.push(
      `<h2>${escape(name)}</h2>` +
        (header
          ? `<table><thead>${line(header, 'th')}</thead><tbody>${body.map((r) => line(r, 'td')).join('')}</tbody></table>`
          : ''),
    );
  }
  return {
    body: parts.join('\n'),
    warning: cut.length > 0 ? `Rows left out (at most ${MAX_ROWS} a sheet): ${cut.join('; ')}` : null,
  };
}

/** Each slide in order: its title as a heading, its other text as paragraphs. */
function pptxToHtml(files: Record<string, Uint8Array>): { body: string; slides: number } {
  const slides = Object.keys(files)
    .map((name) => /^ppt\/slides\/slide(\d+)\.xml$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const parts: string[] = [];
  for (const [name, n] of slides) {
    const doc = xml(files, name)!;
    let title: string | null = null;
    const paragraphs: string[] = [];
    for (const shape of byTag(doc.children, 'p:sp')) {
      const placeholder = findOne((e) => e.name === 'p:ph', shape.children);
      const isTitle = /^(title|ctrTitle)$/.test(
        getAttributeValue(placeholder ?? ({} as Element), 'type') ?? '',
      );
      const lines = byTag([shape], 'a:p')
        .map((p) => byTag([p], 'a:t').map(textContent).join('').trim())
        .filter(Boolean);
      if (isTitle && title === null) title = lines.join(' ');
      else paragraphs.push(...lines);
    }
    parts.push(
      `<h2>${escape(title ?? `Slide ${n}`)}</h2>${paragraphs.map((p) => `<p>${escape(p)}</p>`).join('')}`,
    );
  }
  return { body: parts.join('\n'), slides: slides.length };
}

/**
 * Converts a Word, Excel or PowerPoint file to HTML for the page pipeline: Word through mammoth (its styles as
 * headings, lists and tables), sheets and slides from their XML parts. The parts unpack to `maxBytes` at most
 * (MAX_DOCUMENT_BYTES), else a 422 CONTENT_TOO_LARGE.
 */
export async function officeToHtml(
  bytes: Uint8Array,
  kind: OfficeKind,
  maxBytes: number,
): Promise<OfficeConversion> {
  const files = unzip(bytes, kind, maxBytes);
  const { title, author } = coreProperties(files);
  let body: string;
  let warning: string | null = null;
  let numPages: number | null = null;
  if (kind === 'docx') {
    const mammoth = (await import('mammoth')).default;
    try {
      // mammoth opens the zip itself: it gets the parts inflated above, stored, so nothing it reads is
      // inflated past the budget.
      const zip = storedZip(files);
      body = (await mammoth.convertToHtml({ buffer: Buffer.from(zip.buffer, zip.byteOffset, zip.length) }))
        .value;
    } catch (err) {
      throw new UnsupportedContentError(`The Word file could not be read: ${(err as Error).message}`);
    }
  } else if (kind === 'xlsx') {
    ({ body, warning } = xlsxToHtml(files));
  } else {
    const slides = pptxToHtml(files);
    body = slides.body;
    numPages = slides.slides;
  }
  const head = title ? `<head><title>${escape(title)}</title></head>` : '<head></head>';
  return {
    html: `<!DOCTYPE html><html>${head}<body><main>${body}</main></body></html>`,
    mediaType: MEDIA_TYPES[kind],
    title,
    author,
    numPages,
    warning,
  };
}
