// Worker-thread entry: every parse of fetched bytes (pages, sitemaps, search result pages, a page's attributes
// and structured data) runs here, off the event loop.
import { isMainThread } from 'node:worker_threads';
import { AppError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { runContentTask } from './content-tasks.js';
import type { ContentOutput, ContentTask } from './content-tasks.js';
import { collectBetweenTasks } from './young-collection.js';
import { serveTasks } from './worker-pool.js';

export interface ContentEnvelope {
  task: ContentTask;
  /** Epoch ms after which nobody waits for the result: a task that reaches its worker later is skipped. */
  deadlineAt: number;
}

/** A failure crosses back as its code and message; the pool rebuilds the error with errorFromCode. */
export type ContentResult =
  | { ok: true; value: ContentOutput }
  | { ok: false; expired: true }
  | { ok: false; expired: false; code: ErrorCode; message: string };

export default async function runInWorker(envelope: ContentEnvelope): Promise<ContentResult> {
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

if (!isMainThread) serveTasks(runInWorker);
