import { parseSitemap } from '../crawl/sitemap.js';
import type { SitemapDocument } from '../crawl/sitemap.js';
import type { FetchedPage } from '../engines/types.js';
import { parseResultsPage } from '../search/providers/duckduckgo.js';
import type { SearchHit } from '../search/types.js';
import { isPdf, pdfToHtml } from '../content/documents/pdf.js';
import { documentLayout } from '../content/documents/pdf-layout.js';
import { officeKindOf, officeToHtml } from '../content/documents/office.js';
import type { OfficeKind } from '../content/documents/office.js';
import { BadRequestError, UnsupportedContentError } from '../errors.js';
import { renderPage, unparsedDocument } from './page-document.js';
import { readPageData } from './page-data.js';
import { markdownDiff } from '../content/markdown-diff.js';
import type { PageData, PageDataRequest } from './page-data.js';
import type { DocumentOptions, RenderedPage } from './page-document.js';

/** The kinds of parsing that run in the content workers, each with its input. */
export type ContentTask =
  | {
      kind: 'page';
      page: FetchedPage;
      options: DocumentOptions;
      /** Bytes a document may unpack to (MAX_DOCUMENT_BYTES). */
      maxDocumentBytes: number;
    }
  | { kind: 'sitemap'; body: Uint8Array }
  | { kind: 'search-results'; html: string; base: string }
  | { kind: 'page-data'; request: PageDataRequest }
  | { kind: 'diff'; previous: string; current: string };

export interface ContentOutputs {
  page: RenderedPage;
  sitemap: SitemapDocument;
  'search-results': SearchHit[];
  'page-data': PageData;
  /** A unified diff of two versions of a page's Markdown; null when it took too long (given up). */
  diff: string | null;
}
export type ContentOutput = ContentOutputs[keyof ContentOutputs];

/** Buffers arrive in a worker as plain Uint8Arrays after structured cloning. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

type DocumentKind = 'pdf' | OfficeKind;

/**
 * A document (PDF, Word, Excel, PowerPoint) goes through the page pipeline as HTML; the page document then
 * says what it was (contentType, numPages, author, creationDate, and a warning when text is missing).
 */
async function renderDocument(
  page: FetchedPage,
  kind: DocumentKind,
  options: DocumentOptions,
  maxBytes: number,
): Promise<RenderedPage> {
  const name = kind === 'pdf' ? 'a PDF' : `a ${kind.toUpperCase()} file`;
  if (options.formats.includes('rawHtml')) {
    throw new BadRequestError(`formats: rawHtml is not available for ${name} (it has no HTML); ask for html`);
  }
  if (options.cssExtract) {
    throw new UnsupportedContentError(`CSS selectors do not apply to ${name}: use extract's llm mode`);
  }
  const asked = options.documentLayout ?? {};
  const layout = asked.pages === true || asked.blocks === true || asked.pageMarkers === true;
  const maxPages = options.maxDocumentPages ?? 500;
  const converted =
    kind === 'pdf'
      ? {
          ...(await pdfToHtml(page.body, maxPages, maxBytes, layout)),
          mediaType: 'application/pdf',
        }
      : { ...(await officeToHtml(page.body, kind, maxBytes)), created: null, layout: null };
  const rendered = renderPage(
    {
      ...page,
      headers: { ...page.headers, 'content-type': 'text/html; charset=utf-8' },
      body: Buffer.from(converted.html),
    },
    // A converted document has no page around it (no menus, no footer, no related links): all of it is
    // its main content, so the model that picks a web page's main part out of its chrome is not asked.
    { ...options, onlyMainContent: false },
  );
  const m = rendered.document.metadata;
  m.contentType = converted.mediaType;
  if (converted.numPages !== null) m.numPages = converted.numPages;
  if (kind === 'pdf' && converted.numPages !== null && converted.numPages > maxPages) m.pagesRead = maxPages;
  m.author = converted.author;
  if (kind === 'pdf') m.creationDate = converted.created;
  if (converted.warning) m.warning = converted.warning;
  if (converted.layout) {
    const { pages, blocks, markedMarkdown } = documentLayout(converted.layout, asked, new URL(page.url));
    if (pages) rendered.document.pages = pages;
    if (blocks) rendered.document.blocks = blocks;
    if (markedMarkdown !== undefined && rendered.document.markdown !== undefined)
      rendered.document.markdown = markedMarkdown;
  }
  rendered.documentKind = kind;
  return rendered;
}

/** Runs one task; CPU work on its input, no I/O. */
export async function runContentTask(task: ContentTask): Promise<ContentOutput> {
  switch (task.kind) {
    case 'page': {
      const page = { ...task.page, body: asBuffer(task.page.body) };
      const type = page.headers['content-type'];
      const kind = isPdf(page.body, type) ? 'pdf' : officeKindOf(page.body, type);
      if (kind === 'pdf' && task.options.parsePdf === false)
        return unparsedDocument(page, task.options, 'application/pdf');
      if (kind) return renderDocument(page, kind, task.options, task.maxDocumentBytes);
      return renderPage(page, task.options);
    }
    case 'sitemap':
      return parseSitemap(asBuffer(task.body));
    case 'search-results':
      return parseResultsPage(task.html, task.base);
    case 'page-data':
      return readPageData(task.request);
    case 'diff':
      return markdownDiff(task.previous, task.current) ?? null;
  }
}
