import { parseSitemap } from '../crawl/sitemap.js';
import type { SitemapDocument } from '../crawl/sitemap.js';
import type { FetchedPage } from '../engines/types.js';
import { parseResultsPage } from '../search/providers/duckduckgo.js';
import type { SearchHit } from '../search/types.js';
import { isPdf, pdfToHtml } from '../content/pdf.js';
import { BadRequestError } from '../errors.js';
import { renderPage } from './page-document.js';
import type { DocumentOptions, RenderedPage } from './page-document.js';

/** The kinds of parsing that run in the content workers, each with its input. */
export type ContentTask =
  | { kind: 'page'; page: FetchedPage; options: DocumentOptions }
  | { kind: 'sitemap'; body: Uint8Array }
  | { kind: 'search-results'; html: string; base: string };

export interface ContentOutputs {
  page: RenderedPage;
  sitemap: SitemapDocument;
  'search-results': SearchHit[];
}
export type ContentOutput = ContentOutputs[keyof ContentOutputs];

/** Buffers arrive in a worker as plain Uint8Arrays after structured cloning. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A PDF goes through the page pipeline as the HTML of its text layer; the document then says what it was
 * (contentType, numPages, author, creationDate, and a warning when text is missing).
 */
async function renderDocument(page: FetchedPage, options: DocumentOptions): Promise<RenderedPage> {
  if (options.formats.includes('rawHtml')) {
    throw new BadRequestError('formats: rawHtml is not available for a PDF (it has no HTML); ask for html');
  }
  const pdf = await pdfToHtml(page.body, options.maxDocumentPages ?? 500);
  const rendered = renderPage(
    {
      ...page,
      headers: { ...page.headers, 'content-type': 'text/html; charset=utf-8' },
      body: Buffer.from(pdf.html),
    },
    options,
  );
  const m = rendered.document.metadata;
  m.contentType = 'application/pdf';
  m.numPages = pdf.numPages;
  m.author = pdf.author;
  m.creationDate = pdf.created;
  if (pdf.warning) m.warning = pdf.warning;
  return rendered;
}

/** Runs one task; CPU work on its input, no I/O. */
export async function runContentTask(task: ContentTask): Promise<ContentOutput> {
  switch (task.kind) {
    case 'page': {
      const page = { ...task.page, body: asBuffer(task.page.body) };
      if (isPdf(page.body, page.headers['content-type'])) return renderDocument(page, task.options);
      return renderPage(page, task.options);
    }
    case 'sitemap':
      return parseSitemap(asBuffer(task.body));
    case 'search-results':
      return parseResultsPage(task.html, task.base);
  }
}
