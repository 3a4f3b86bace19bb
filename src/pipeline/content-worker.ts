// Worker-thread entry: every parse of fetched bytes (pages, sitemaps, search result pages, a page's attributes
// and structured data) runs here, off the event loop.
import { AppError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { runContentTask } from './content-tasks.js';
import type { ContentOutput, ContentTask } from './content-tasks.js';
import { collectBetweenTasks } from './young-collection.js';

export interface ContentEnvelope {
  task: ContentTask;
  /** Epoch ms after which nobody waits for the result: a task still queued by then is skipped. */
  deadlineAt: number;
  /** Set to 1 by the worker when it starts the task, so the pool knows a queued task from a running one. */
  started: Int32Array;
}

/** A failure crosses back as its code and message; the pool rebuilds the error with errorFromCode. */
export type ContentResult =
  | { ok: true; value: ContentOutput }
  | { ok: false; expired: true }
  | { ok: false; expired: false; code: ErrorCode; message: string };

export default async function runInWorker(envelope: ContentEnvelope): Promise<ContentResult> {
  Atomics.store(envelope.started, 0, 1);
  if (Date.now() >= envelope.deadlineAt) return { ok: false, expired: true };
  // The last task's garbage goes before this one allocates (young-collection.ts).
  collectBetweenTasks();
  try {
    return { ok: true, value: await runContentTask(envelope.task) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, expired: false, code: err.code, message: err.message };
    if (err instanceof RangeError) {
      const message = `Content could not be processed: ${err.message}`;
      return { ok: false, expired: false, code: 'UNSUPPORTED_CONTENT', message };
    }
    throw err;
  }
}
