import type { Metrics } from '../lib/metrics.js';
import os from 'node:os';
import { ContentTooLargeError, ServiceBusyError, ServiceUnavailableError, errorFromCode } from '../errors.js';
import type { SitemapDocument } from '../crawl/sitemap.js';
import type { FetchedPage } from '../engines/types.js';
import type { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import { meteredTenant } from '../tenants/metering.js';
import type { Meter } from '../tenants/metering.js';
import { DEFAULT_TENANT } from '../tenants/tenant.js';
import type { SearchHit } from '../search/types.js';
import type { ContentEnvelope, ContentResult } from './content-worker.js';
import { WorkerPool } from './worker-pool.js';
import type { PoolTask } from './worker-pool.js';
import type { ContentOutputs, ContentTask } from './content-tasks.js';
import type { DocumentOptions, RenderedPage } from './page-document.js';
import type { PageData, PageDataRequest } from './page-data.js';

export interface ContentPoolOptions {
  /** Worker threads; 0 runs tasks on the calling thread (no pool: tools and benchmarks only). */
  threads: number;
  /** Heap cap per worker, so one pathological page cannot take the process down. */
  maxHeapMb: number;
  /** How long a task may run past its request's deadline before its worker is ended (CONTENT_TASK_GRACE_MS). */
  graceMs: number;
  /** Pages of a document (PDF) read at most (MAX_DOCUMENT_PAGES). */
  maxDocumentPages?: number;
  /** Bytes a document may unpack to (MAX_DOCUMENT_BYTES). */
  maxDocumentBytes: number;
  log: Logger;
  /** Task durations and aborts. */
  metrics?: Metrics;
  /** Where each document parsed (PDF, Office) counts, to the tenant of the work running (metering.ts). */
  meter?: Meter;
}

/** Where the file of the worker entry lives: .ts when running from source (tsx), .js when built. */
function workerFile(): URL {
  const self = new URL(import.meta.url);
  const extension = self.pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./content-worker${extension}`, self);
}

export function defaultContentThreads(): number {
  return Math.max(1, Math.min(os.availableParallelism(), 8));
}

/**
 * Every parse of fetched bytes runs on a bounded pool of worker threads, so the event loop (health checks,
 * streams, other requests) stays responsive. Each task is tied to its request's deadline:
 * - the caller is answered when the deadline passes, whether the task is queued or running;
 * - a task still queued then is dropped from the queue;
 * - a task still running `graceMs` later has its worker thread ended (the pool starts a new one), so
 *   no page can hold a worker for longer than its deadline plus the grace period.
 */
export class ContentPool {
  private readonly pool: WorkerPool<ContentEnvelope, ContentResult> | null;
  private inFlight = 0;
  private stopped = 0;

  constructor(private readonly options: ContentPoolOptions) {
    this.pool =
      options.threads > 0
        ? new WorkerPool({
            file: workerFile(),
            threads: options.threads,
            maxQueue: options.threads * 64,
            // Up to a 64 MB young generation: a page's tree lives while the page is processed and dies with
            // it. Node's `--max-semi-space-size` caps every isolate of the process, so under `npm start`
            // (`--max-semi-space-size=4`) a worker's is the main thread's (docs/architecture.md, "Memory
            // and the collector").
            resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb, maxYoungGenerationSizeMb: 64 },
            onIdleWorkerDied: (err) =>
              options.log.warn(
                { err },
                'a content worker thread died between tasks; a new one takes its place',
              ),
          })
        : null;
  }

  /** A page's or an upload's bytes as a page document; a document among them (PDF, Office) is counted. */
  async render(page: FetchedPage, options: DocumentOptions, deadline: Deadline): Promise<RenderedPage> {
    const server = this.options.maxDocumentPages ?? Number.MAX_SAFE_INTEGER;
    const withLimits = { ...options, maxDocumentPages: Math.min(options.maxDocumentPages ?? server, server) };
    const task = {
      kind: 'page' as const,
      page,
      options: withLimits,
      maxDocumentBytes: this.options.maxDocumentBytes,
    };
    const rendered = await this.run(task, deadline, page.url);
    if (rendered.documentKind) this.options.meter?.add(meteredTenant() ?? DEFAULT_TENANT, { documents: 1 });
    return rendered;
  }

  sitemap(body: Buffer, url: string, deadline: Deadline): Promise<SitemapDocument> {
    return this.run({ kind: 'sitemap', body }, deadline, url);
  }

  searchResults(html: string, base: string, deadline: Deadline): Promise<SearchHit[]> {
    return this.run({ kind: 'search-results', html, base }, deadline, base);
  }

  /** Attribute values, declared product and menu of a page's HTML (Firecrawl's attributes, product, menu). */
  pageData(request: PageDataRequest, deadline: Deadline): Promise<PageData> {
    return this.run({ kind: 'page-data', request }, deadline, request.url);
  }

  /** A unified diff of two versions of a page's Markdown (monitors), off the main thread; null when given up. */
  diff(previous: string, current: string, deadline: Deadline): Promise<string | null> {
    return this.run({ kind: 'diff', previous, current }, deadline, 'diff');
  }

  /** Worker threads, tasks waiting for one, tasks in flight, and tasks whose worker was ended for overrunning. */
  stats(): { threads: number; queued: number; inFlight: number; stopped: number } {
    return {
      threads: this.pool?.threads ?? 0,
      queued: this.pool?.queued ?? 0,
      inFlight: this.inFlight,
      stopped: this.stopped,
    };
  }

  private async run<K extends ContentTask['kind']>(
    task: Extract<ContentTask, { kind: K }>,
    deadline: Deadline,
    target: string,
  ): Promise<ContentOutputs[K]> {
    deadline.check('formatting');
    // Without workers the pipeline runs here, loaded on first use: with them, this thread never holds it.
    if (!this.pool)
      return (await (await import('./content-tasks.js')).runContentTask(task)) as ContentOutputs[K];
    const started = performance.now();
    const job: PoolTask<ContentEnvelope> = { input: { task, deadlineAt: deadline.at }, started: false };
    const abort = new AbortController();
    let graceTimer: NodeJS.Timeout | undefined;
    const onDeadline = (): void => {
      this.options.metrics?.contentAbort('deadline');
      if (!job.started) {
        abort.abort(); // still queued: nobody waits for it any more
        return;
      }
      graceTimer = setTimeout(() => {
        this.stopped++;
        this.options.metrics?.contentAbort('worker_ended');
        this.options.log.warn(
          { host: hostOf(target), task: task.kind, graceMs: this.options.graceMs },
          `content task still running ${this.options.graceMs} ms after its deadline (CONTENT_TASK_GRACE_MS): its worker was ended`,
        );
        abort.abort();
      }, this.options.graceMs);
      graceTimer.unref();
    };
    if (deadline.signal.aborted) onDeadline();
    else deadline.signal.addEventListener('abort', onDeadline, { once: true });
    const work = this.pool.run(job, abort.signal);
    this.inFlight++;
    // Settles the bookkeeping whether the caller still waits or not.
    void work.then(
      () => {
        this.options.metrics?.contentTask(task.kind, (performance.now() - started) / 1000);
        this.settled(deadline, onDeadline, graceTimer);
      },
      () => this.settled(deadline, onDeadline, graceTimer),
    );
    let result: ContentResult;
    try {
      result = await deadline.race(work, 'formatting');
    } catch (err) {
      if (err instanceof ServiceBusyError) {
        throw new ServiceUnavailableError('Content workers are saturated; retry shortly');
      }
      // The worker hit its heap cap and was ended; the pool starts another in its place.
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.options.log.warn(
          { host: hostOf(target), task: task.kind, heapMb: this.options.maxHeapMb },
          'content worker ran out of memory (CONTENT_WORKER_HEAP_MB): its worker was replaced',
        );
        throw new ContentTooLargeError(
          `The content is too large to process: converting it took more than the content worker's ${this.options.maxHeapMb} MB heap (CONTENT_WORKER_HEAP_MB)`,
          { cause: err },
        );
      }
      throw err;
    }
    if (result.ok) return result.value as ContentOutputs[K];
    if (result.expired) throw deadline.timeoutError('formatting');
    throw errorFromCode(result.code, result.message);
  }

  private settled(deadline: Deadline, onDeadline: () => void, graceTimer: NodeJS.Timeout | undefined): void {
    this.inFlight--;
    deadline.signal.removeEventListener('abort', onDeadline);
    clearTimeout(graceTimer);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown';
  }
}
