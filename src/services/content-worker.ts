// Worker-thread entry: turns fetched bytes into a page document off the event loop.
import { AppError } from '../errors.js';
import type { FetchedPage } from '../engines/types.js';
import { renderPage } from './page-document.js';
import type { DocumentOptions, RenderedPage } from './page-document.js';

export interface ContentTask {
  page: FetchedPage;
  options: DocumentOptions;
  /** Epoch ms after which nobody waits for the result: a task still queued by then is skipped. */
  deadlineAt: number;
}

export type ContentResult =
  | { ok: true; page: RenderedPage }
  | { ok: false; expired: true }
  | { ok: false; expired: false; code: string; status: number; message: string };

export default function renderInWorker(task: ContentTask): ContentResult {
  if (Date.now() >= task.deadlineAt) return { ok: false, expired: true };
  // Buffers arrive as plain Uint8Arrays after structured cloning.
  const page = {
    ...task.page,
    body: Buffer.from(task.page.body.buffer, task.page.body.byteOffset, task.page.body.byteLength),
  };
  try {
    return { ok: true, page: renderPage(page, task.options) };
  } catch (err) {
    if (err instanceof AppError) {
      return { ok: false, expired: false, code: err.code, status: err.status, message: err.message };
    }
    if (err instanceof RangeError) {
      return {
        ok: false,
        expired: false,
        code: 'UNSUPPORTED_CONTENT',
        status: 422,
        message: `Page could not be processed: ${err.message}`,
      };
    }
    throw err;
  }
}
