import os from 'node:os';
import { Piscina } from 'piscina';
import { ServiceUnavailableError, errorFromCode } from '../errors.js';
import type { FetchedPage } from '../engines/types.js';
import type { Deadline } from '../lib/deadline.js';
import type { ContentResult, ContentTask } from './content-worker.js';
import type { DocumentOptions, RenderedPage } from './page-document.js';
import { renderPage } from './page-document.js';

export interface ContentPoolOptions {
  /** Worker threads; 0 renders on the calling thread (no pool). */
  threads: number;
  /** Heap cap per worker, so one pathological page cannot take the process down. */
  maxHeapMb: number;
}

/** Where the file of the worker entry lives: .ts when running from source (tsx), .js when built. */
function workerFile(): string {
  const self = new URL(import.meta.url);
  const extension = self.pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./content-worker${extension}`, self).href;
}

export function defaultContentThreads(): number {
  return Math.max(1, Math.min(os.availableParallelism(), 8));
}

/**
 * Parsing and conversion run on a bounded pool of worker threads so the event loop (health checks,
 * streams, other requests) stays responsive. A task whose request timed out keeps its worker until it
 * finishes (bounded work), and a task still queued when its deadline passes is skipped.
 */
export class ContentPool {
  private readonly pool: Piscina | null;

  constructor(options: ContentPoolOptions) {
    this.pool =
      options.threads > 0
        ? new Piscina({
            filename: workerFile(),
            minThreads: options.threads,
            maxThreads: options.threads,
            maxQueue: options.threads * 64,
            idleTimeout: 30_000,
            resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
          })
        : null;
  }

  async render(page: FetchedPage, options: DocumentOptions, deadline: Deadline): Promise<RenderedPage> {
    if (!this.pool) return renderPage(page, options);
    const task: ContentTask = { page, options, deadlineAt: deadline.at };
    let result: ContentResult;
    try {
      result = await deadline.race(this.pool.run(task) as Promise<ContentResult>, 'formatting');
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw new ServiceUnavailableError('Content workers are saturated; retry shortly');
      }
      throw err;
    }
    if (result.ok) return result.page;
    if (result.expired) throw deadline.timeoutError('formatting');
    throw errorFromCode(result.code, result.message);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
