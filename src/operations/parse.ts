import path from 'node:path';
import { BadRequestError, TargetTooLargeError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { ParseBody } from '../schemas/parse.js';
import type { PageDocument } from '../schemas/page.js';
import type { ContentPool } from '../pipeline/content-pool.js';

/** Media types by extension, for files whose bytes do not say (text has no magic number). */
const BY_EXTENSION: Record<string, string> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** A file to convert: its name (the extension tells the type when the bytes do not) and bytes. */
export interface UploadedFile {
  filename: string;
  bytes: Buffer;
  /** The type the sender gave, if any. */
  contentType?: string;
}

/** What a parse may ask for: the page formats and selection, as a scrape. */
export type ParseOptions = Pick<
  ParseBody,
  'formats' | 'onlyMainContent' | 'includeTags' | 'excludeTags' | 'maxDocumentPages' | 'documentLayout'
>;

/**
 * A file's bytes through the page pipeline (the same content workers, formats and main content as a fetched
 * page), under a `file:` URL naming it. What the pipeline cannot convert is its usual 422.
 */
export async function parseFile(
  file: UploadedFile,
  options: ParseOptions,
  deadline: Deadline,
  deps: { content: ContentPool; maxBytes: number },
): Promise<PageDocument> {
  const { bytes } = file;
  if (bytes.length === 0) throw new BadRequestError('file: empty');
  if (options.formats?.includes('branding'))
    throw new BadRequestError('formats: branding reads a page rendered in the browser; an upload is not');
  if (bytes.length > deps.maxBytes) {
    throw new TargetTooLargeError(
      `${file.filename} is ${bytes.length} bytes; at most ${deps.maxBytes} (MAX_RESPONSE_BYTES)`,
    );
  }
  const name = path.basename(file.filename);
  const url = `file:///${encodeURIComponent(name)}`;
  const given =
    file.contentType && !/^application\/octet-stream/i.test(file.contentType) ? file.contentType : undefined;
  const type = given ?? BY_EXTENSION[path.extname(name).toLowerCase()];
  const rendered = await deps.content.render(
    { url, status: 200, headers: type ? { 'content-type': type } : {}, body: bytes, redirects: [] },
    {
      sourceUrl: url,
      formats: options.formats ?? ['markdown'],
      onlyMainContent: options.onlyMainContent ?? false,
      removeBase64Images: true,
      includeTags: options.includeTags,
      excludeTags: options.excludeTags,
      detectionReason: null,
      maxDocumentPages: options.maxDocumentPages,
      documentLayout: options.documentLayout,
    },
    deadline,
  );
  return rendered.document;
}
