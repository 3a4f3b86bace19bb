import { toMarkdown } from '../markdown/markdown.js';
import { bodyOf, isTag } from '../parse/dom.js';
import { parseHtml } from '../parse/parse.js';
import type {
  DocumentBlock,
  DocumentLayoutOption,
  DocumentPage,
  DocumentPageBlocks,
} from '../../schemas/document-layout.js';
import type { PdfArea, PdfBlock, PdfPageLayout } from './pdf.js';

/**
 * A PDF's pages as Markdown and typed blocks, from the blocks the converter found on each page (pdf.ts): no
 * layout model and no OCR, so every block comes from the text layer and carries no confidence. A page's
 * Markdown is its blocks' Markdown joined by blank lines, so each block's span in it is exact.
 */

/** Blocks listed per page at most: a page of thousands of one-word lines must not become megabytes of JSON. */
export const MAX_BLOCKS_PER_PAGE = 2000;

/** What Firecrawl's `pageMarkers` puts between two pages' Markdown (N: the page that follows). */
export const pageMarker = (pageNumber: number): string => `\n\n---\n\n<!-- page ${pageNumber} -->\n\n`;

export interface DocumentLayout {
  pages?: DocumentPage[];
  blocks?: DocumentPageBlocks[];
  /** The pages' Markdown joined by page markers (only with `pageMarkers`). */
  markedMarkdown?: string;
}

/** Consecutive list items are one list, as in the document's HTML. */
function withListsJoined(blocks: PdfBlock[]): PdfBlock[] {
  const joined: PdfBlock[] = [];
  for (const block of blocks) {
    const previous = joined.at(-1);
    if (block.kind === 'list' && previous?.kind === 'list') {
      previous.html += block.html;
      previous.area = [
        Math.min(previous.area[0], block.area[0]),
        Math.min(previous.area[1], block.area[1]),
        Math.max(previous.area[2], block.area[2]),
        Math.max(previous.area[3], block.area[3]),
      ];
    } else joined.push({ ...block, area: [...block.area] });
  }
  return joined.map((b) => (b.kind === 'list' ? { ...b, html: `<ul>${b.html}</ul>` } : b));
}

const round = (n: number): number => Math.round(n * 100) / 100;

/** A block's area as [x0, y0, x1, y1] in points from the page's top-left corner, within the page. */
function bboxOf(area: PdfArea, page: PdfPageLayout): number[] {
  const [a, b, c, d, e, f] = page.transform as [number, number, number, number, number, number];
  const corners = [
    [area[0], area[1]],
    [area[2], area[3]],
  ].map(([x, y]) => [a * x! + c * y! + e, b * x! + d * y! + f] as const);
  const xs = corners.map((p) => Math.min(page.width, Math.max(0, p[0])));
  const ys = corners.map((p) => Math.min(page.height, Math.max(0, p[1])));
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].map(round);
}

/** One page's blocks and Markdown: its blocks' HTML parsed once, each top-level element rendered on its own. */
function pageOf(
  page: PdfPageLayout,
  pageNumber: number,
  base: URL,
): { markdown: string; blocks: DocumentPageBlocks } {
  const blocks = withListsJoined(page.blocks);
  const kept = blocks.slice(0, MAX_BLOCKS_PER_PAGE);
  const body = bodyOf(parseHtml(`<body>${kept.map((b) => b.html).join('')}</body>`));
  const elements = 'children' in body ? body.children.filter(isTag) : [];
  let markdown = '';
  const items: DocumentBlock[] = [];
  elements.forEach((element, i) => {
    const block = kept[i];
    const content = toMarkdown([element], { base, removeBase64Images: true });
    if (!block || content === '') return;
    if (markdown !== '') markdown += '\n\n';
    const start = markdown.length;
    markdown += content;
    items.push({
      id: `p${pageNumber}-${items.length}`,
      type: block.kind,
      label: element.name,
      bbox: bboxOf(block.area, page),
      content,
      markdownSpan: [start, markdown.length],
      readingOrder: items.length,
      source: 'text-layer',
      confidence: { layout: null, ocr: null },
    });
  });
  return {
    markdown,
    blocks: {
      pageNumber,
      width: round(page.width),
      height: round(page.height),
      status: blocks.length > MAX_BLOCKS_PER_PAGE ? 'truncated' : 'ok',
      items,
    },
  };
}

/** The fields a request's `documentLayout` asks for, from the converter's pages (`base`: the document's URL). */
export function documentLayout(
  pages: PdfPageLayout[],
  asked: DocumentLayoutOption,
  base: URL,
): DocumentLayout {
  const read = pages.map((page, i) => ({ pageNumber: i + 1, ...pageOf(page, i + 1, base) }));
  const out: DocumentLayout = {};
  if (asked.pages) out.pages = read.map(({ pageNumber, markdown }) => ({ pageNumber, markdown }));
  if (asked.blocks) out.blocks = read.map((page) => page.blocks);
  if (asked.pageMarkers) {
    out.markedMarkdown = read
      .map((page, i) => (i === 0 ? page.markdown : pageMarker(page.pageNumber) + page.markdown))
      .join('');
  }
  return out;
}
