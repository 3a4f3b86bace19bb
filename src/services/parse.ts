import path from 'node:path';
import { BadRequestError, TargetTooLargeError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { ParseBody } from '../schemas/parse.js';
import type { PageDocument } from '../schemas/page.js';
import type { ContentPool } from './content-pool.js';

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

/**
 * A file's bytes through the page pipeline (the same content workers, formats and main content as a fetched
 * page), under a `file:` URL naming it. What the pipeline cannot convert is its usual 422.
 */
export async function parseFile(
  body: ParseBody,
  deadline: Deadline,
  deps: { content: ContentPool; maxBytes: number },
): Promise<PageDocument> {
  const bytes = Buffer.from(body.content, 'base64');
  if (bytes.length === 0) throw new BadRequestError('content: not base64, or empty');
  if (bytes.length > deps.maxBytes) {
    throw new TargetTooLargeError(
      `${body.filename} is ${bytes.length} bytes; at most ${deps.maxBytes} (MAX_RESPONSE_BYTES)`,
    );
  }
  const name = path.basename(body.filename);
  const url = `file:///${encodeURIComponent(name)}`;
  const type = BY_EXTENSION[path.extname(name).toLowerCase()];
  const rendered = await deps.content.render(
    { url, status: 200, headers: type ? { 'content-type': type } : {}, body: bytes, redirects: [] },
    {
      sourceUrl: url,
      formats: body.formats ?? ['markdown'],
      onlyMainContent: body.onlyMainContent ?? false,
      removeBase64Images: true,
      includeTags: body.includeTags,
      excludeTags: body.excludeTags,
      detectionReason: null,
    },
    deadline,
  );
  return rendered.document;
}
