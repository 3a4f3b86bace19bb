import { parseSitemap } from '../crawl/sitemap.js';
import type { SitemapDocument } from '../crawl/sitemap.js';
import type { FetchedPage } from '../engines/types.js';
import { parseResultsPage } from '../search/providers/duckduckgo.js';
import type { SearchHit } from '../search/types.js';
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

/** Runs one task; pure CPU work on its input, no I/O. */
export function runContentTask(task: ContentTask): ContentOutput {
  switch (task.kind) {
    case 'page':
      return renderPage({ ...task.page, body: asBuffer(task.page.body) }, task.options);
    case 'sitemap':
      return parseSitemap(asBuffer(task.body));
    case 'search-results':
      return parseResultsPage(task.html, task.base);
  }
}
