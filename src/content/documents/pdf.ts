import { UnsupportedContentError } from '../../errors.js';
import { type LinkArea, type Line, type Segment, type TextItem, linesOf } from './pdf-lines.js';
import { checkPdfStreams } from './pdf-size/check.js';
import { type PdfTable, tableAt } from './pdf-tables.js';

/** A PDF as HTML for the page pipeline, with what the document says about itself. */
export interface PdfConversion {
  html: string;
  numPages: number;
  title: string | null;
  author: string | null;
  /** ISO date of the document's CreationDate, when it has a readable one. */
  created: string | null;
  /** Why the Markdown may be short: no text layer (scanned), or pages past the limit left out. */
  warning: string | null;
  /** Each page read, its blocks and geometry (only when asked: `document.pages` and `blocks` are made of it). */
  layout: PdfPageLayout[] | null;
}

/** The area a block's text covers, in PDF user space: [left, bottom, right, top]. */
export type PdfArea = [number, number, number, number];

/** A block of a page as the converter made it: heading, paragraph, list item or table, and its HTML. */
export interface PdfBlock {
  kind: 'heading' | 'paragraph' | 'list' | 'table';
  html: string;
  area: PdfArea;
}

/** One page's blocks, in reading order, with the page's size (points) and pdf.js's view of it. */
export interface PdfPageLayout {
  width: number;
  height: number;
  /** pdf.js's viewport transform at scale 1: PDF user space to points from the top-left corner. */
  transform: number[];
  blocks: PdfBlock[];
}

const BULLET = /^\s*(?:[•◦▪‣·●○■□–\uF0B7\uF0A7-]|\d{1,3}[.)])\s+/;

export const isPdf = (bytes: Uint8Array, contentType: string | undefined): boolean =>
  /application\/(x-)?pdf/i.test(contentType ?? '') ||
  (bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-');

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** D:20261123221924+00'00' → 2026-11-23T22:19:24Z (the offset applied); null when unreadable. */
function pdfDate(value: unknown): string | null {
  const m =
    typeof value === 'string' ? /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(value) : null;
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00'] = m;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const htmlOf = (segments: Segment[]): string =>
  segments
    .map((s) => (s.href ? `<a href="${escape(s.href)}">${escape(s.text)}</a>` : escape(s.text)))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();

/** A table's first row as its header: PDFs do not say, and most tables start with one. */
const tableHtml = (table: PdfTable): string =>
  `<table>${table.rows
    .map((row, r) => {
      const tag = r === 0 ? 'th' : 'td';
      return `<tr>${row.map((cell) => `<${tag}>${htmlOf(cell)}</${tag}>`).join('')}</tr>`;
    })
    .join('')}</table>`;

/** The size most of the text is set in (by characters): the body text. */
function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const size = Math.round(l.size);
    weight.set(size, (weight.get(size) ?? 0) + l.segments.reduce((n, s) => n + s.text.length, 0));
  }
  return [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 12;
}

/** A line's text from just under its baseline (descenders) to the top of its letters. */
function lineArea(line: Line): PdfArea {
  const left = Math.min(...line.cells.map((c) => c.left));
  const right = Math.max(...line.cells.map((c) => c.right));
  return [left, line.y - line.size * 0.2, right, line.y + line.size * 0.8];
}

const union = (a: PdfArea, b: PdfArea): PdfArea => [
  Math.min(a[0], b[0]),
  Math.min(a[1], b[1]),
  Math.max(a[2], b[2]),
  Math.max(a[3], b[3]),
];

/**
 * Lines as blocks: headings where the font is clearly larger than the body's (h1 ≥ 1.6×, h2 ≥ 1.3×, h3 ≥
 * 1.15×), list items where a line starts with a bullet or a number, paragraphs of the lines between (a gap
 * larger than 1.6 lines starts a new one; a word hyphenated across lines is joined).
 */
function blocksOf(lines: Line[], body: number): PdfBlock[] {
  const blocks: PdfBlock[] = [];
  let paragraph: string[] = [];
  let paragraphArea: PdfArea | null = null;
  let last: Line | null = null;
  const flush = (): void => {
    if (paragraph.length > 0) {
      const html = `<p>${paragraph.join(' ').replace(/(\w)- (\p{Ll})/gu, '$1$2')}</p>`;
      blocks.push({ kind: 'paragraph', html, area: paragraphArea! });
    }
    paragraph = [];
    paragraphArea = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const table = tableAt(lines, i);
    if (table) {
      flush();
      const area = lines.slice(i, table.end).map(lineArea).reduce(union);
      blocks.push({ kind: 'table', html: tableHtml(table), area });
      i = table.end - 1;
      last = lines[i]!;
      continue;
    }
    const line = lines[i]!;
    const text = htmlOf(line.segments);
    const ratio = line.size / body;
    const gap = last ? last.y - line.y : 0;
    if (ratio >= 1.15 && text.length < 200) {
      flush();
      const level = ratio >= 1.6 ? 1 : ratio >= 1.3 ? 2 : 3;
      const previous = blocks.at(-1);
      // A heading set on two lines is one heading.
      if (
        previous?.html.startsWith(`<h${level}>`) &&
        last &&
        Math.abs(last.size - line.size) < 0.5 &&
        gap < line.size * 1.6
      ) {
        previous.html = previous.html.replace(`</h${level}>`, ` ${text}</h${level}>`);
        previous.area = union(previous.area, lineArea(line));
      } else {
        blocks.push({ kind: 'heading', html: `<h${level}>${text}</h${level}>`, area: lineArea(line) });
      }
    } else if (BULLET.test(text)) {
      flush();
      blocks.push({ kind: 'list', html: `<li>${text.replace(BULLET, '')}</li>`, area: lineArea(line) });
    } else {
      if (last && (gap > Math.max(line.size, last.size) * 1.6 || gap < 0)) flush();
      paragraph.push(text);
      paragraphArea = paragraphArea ? union(paragraphArea, lineArea(line)) : lineArea(line);
    }
    last = line;
  }
  flush();
  return blocks;
}

/**
 * Converts a PDF's text layer to HTML, at most `maxPages` pages, for the page pipeline: so Markdown, main
 * content, links and every format come from the same code as for web pages. pdf.js reads the bytes; nothing
 * is rendered. An encrypted or unreadable PDF is a 422 naming the reason, and so is one whose streams
 * inflate past `maxBytes` (MAX_DOCUMENT_BYTES), checked before pdf.js sees it (pdf-streams.ts). With
 * `layout`, each page's blocks and geometry come back too.
 */
export async function pdfToHtml(
  bytes: Uint8Array,
  maxPages: number,
  maxBytes: number,
  layout = false,
): Promise<PdfConversion> {
  const checked = checkPdfStreams(bytes, maxBytes);
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc;
  try {
    doc = await getDocument({
      data: checked === bytes ? new Uint8Array(bytes) : checked,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      verbosity: 0,
    }).promise;
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException')
      throw new UnsupportedContentError('The PDF is encrypted (it needs a password)');
    throw new UnsupportedContentError(`The PDF could not be read: ${(err as Error).message}`);
  }
  try {
    const { info } = (await doc.getMetadata().catch(() => ({ info: {} }))) as {
      info: Record<string, unknown>;
    };
    const pages = Math.min(doc.numPages, maxPages);
    const pageLines: Line[][] = [];
    const views: Omit<PdfPageLayout, 'blocks'>[] = [];
    let characters = 0;
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const annotations = (await page.getAnnotations()) as {
        subtype: string;
        url?: string;
        rect: number[];
      }[];
      const links = annotations
        .filter((a) => a.subtype === 'Link' && typeof a.url === 'string' && /^https?:/i.test(a.url))
        .map((a) => ({ url: a.url!, rect: a.rect as LinkArea['rect'] }));
      const items = content.items.filter((i) => 'str' in i) as unknown as TextItem[];
      characters += items.reduce((c, i) => c + i.str.trim().length, 0);
      pageLines.push(linesOf(items, links));
      if (layout) {
        const { width, height, transform } = page.getViewport({ scale: 1 });
        views.push({ width, height, transform: [...(transform as number[])] });
      }
      page.cleanup();
    }
    // The body size of the whole document: a page holding little more than a title has the title's size most.
    const bodyPt = bodySize(pageLines.flat());
    const pageBlocks = pageLines.map((lines) => blocksOf(lines, bodyPt));
    const parts = pageBlocks.flat().map((block) => block.html);
    // The document's own title, else its first heading.
    const firstHeading =
      /<h[1-3]>(.*?)<\/h[1-3]>/.exec(parts.join('\n'))?.[1]?.replace(/<[^>]+>/g, '') ?? null;
    const title =
      typeof info.Title === 'string' && info.Title.trim() !== '' ? info.Title.trim() : firstHeading;
    const author = typeof info.Author === 'string' && info.Author.trim() !== '' ? info.Author.trim() : null;
    const warnings: string[] = [];
    if (characters === 0) warnings.push('The PDF has no text layer (scanned?): OCR is not done');
    if (doc.numPages > pages)
      warnings.push(
        `Only the first ${pages} of ${doc.numPages} pages were read (MAX_DOCUMENT_PAGES or the request's page limit)`,
      );
    const head = `<head>${title ? `<title>${escape(title)}</title>` : ''}${author ? `<meta name="author" content="${escape(author)}">` : ''}</head>`;
    const body = parts.join('\n').replace(/(<li>[\s\S]*?<\/li>\n?)+/g, (items) => `<ul>${items}</ul>`);
    return {
      html: `<!DOCTYPE html><html>${head}<body><main>${body}</main></body></html>`,
      numPages: doc.numPages,
      title,
      author,
      created: pdfDate(info.CreationDate),
      warning: warnings.length > 0 ? warnings.join('. ') : null,
      layout: layout ? pageBlocks.map((blocks, i) => ({ ...views[i]!, blocks })) : null,
    };
  } finally {
    await doc.destroy();
  }
}
