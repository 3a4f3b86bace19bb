import { randomUUID } from 'node:crypto';
import type { CrawlBudget } from '../crawl/budget.js';
import type { Frontier } from '../crawl/frontier.js';
import type { Politeness } from '../crawl/politeness.js';
import { MemoryFrontier } from '../crawl/memory-frontier.js';
import { JobFinishedError, NotFoundError, StoreUnavailableError, toAppError } from '../errors.js';
import type { JobKind, JobRecord, JobStore, RecentFilter } from './stores/job-store.js';
import { FINAL_STATES } from './stores/job-store.js';
import { MemoryJobStore } from './stores/memory-job-store.js';
import { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { sleep } from '../lib/sleep.js';
import type { PageDocument } from '../schemas/page.js';
import type { PageStore } from './stores/page-store.js';
import type { Profiles } from './stores/browser-state/profile-store.js';
import { withProfile } from './profile-session.js';
import { CrawlRun } from './crawl-run.js';
import { matchersFor } from './crawl-matchers.js';
import { publishWarnings } from './fleet-warning.js';
import type { CrawlDeps, CrawlSink, CrawlSpec, CrawlSummary } from './crawl-run.js';
import type { WebhookSender, WebhookTarget } from './webhooks.js';
import type { Fleet, QueueStatus } from './fleet-port.js';

/**
 * What a crawl or batch job stores as its request: enough to run it again after a crash. The surface that
 * started the job keeps its own fields beside these (how its documents are shaped); the engine never reads
 * them, it hands the whole request to the surface's DocumentShaper.
 */
export interface CrawlJobRequest {
  spec: CrawlSpec;
  webhook: WebhookTarget | null;
  /** The URL the caller gave (answered back in status replies). */
  url: string;
  /** Fields given that this server cannot act on, said in every status reply. */
  warning?: string;
  [surfaceField: string]: unknown;
}

/** The moments of a job a webhook hears about. */
export type JobEvent = 'started' | 'page' | 'completed' | 'failed' | 'cancelled';

/** A job event as the webhook's event name and body (the surface that started the job decides both). */
export type WebhookEvents = (
  job: JobRecord,
  event: JobEvent,
  extra: { data?: unknown[]; error?: string },
) => { type: string; body: Record<string, unknown> };

/**
 * Runs a job that produces one value (extract, llms.txt, an agent run) from its stored request; `jobId` is where
 * a run that records its steps (the agent) keeps them, so that a resumed run replays instead of repeating.
 */
export type TaskRunner = (request: unknown, signal: AbortSignal, jobId: string) => Promise<unknown>;

/** Turns a page into the stored document of a job (the shape of the surface that started it). */
export type DocumentShaper = (
  doc: PageDocument,
  sourceUrl: string,
  request: CrawlJobRequest,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export interface JobManagerDeps {
  /** The durable store; null when it cannot be opened (job routes then answer 503 with `storeError`). */
  store: JobStore | null;
  /** A durable job's frontier (the same adapter family as `store`). */
  frontierFor: (jobId: string) => Frontier;
  /** Jobs worked by a fleet of processes through Redis (REDIS_URL); null: this process works them. */
  fleet: Fleet | null;
  /** Registers what to do when the store loses writes it had accepted (a failed commit). */
  onStoreFailure: (listener: (error: StoreUnavailableError) => void) => void;
  storeError: string | null;
  crawl: CrawlDeps;
  webhooks: WebhookSender;
  shapeDocument: DocumentShaper;
  webhookEvent: WebhookEvents;
  tasks: Partial<Record<JobKind, TaskRunner>>;
  log: Logger;
  /** Jobs started and finished. */
  metrics?: Metrics;
  ttlMs: number;
  /** The last scrape of each page (Firecrawl's cache, change tracking), purged after `pagesTtlMs`. */
  pages: PageStore;
  pagesTtlMs: number;
  /** Named browser states a crawl or batch starts from (`profile`); expired ones purged with the jobs. */
  profiles?: Profiles;
  /** Jobs running at once; more wait their turn in `scraping`. */
  maxRunning: number;
  /** A job found interrupted more often than this fails instead of resuming (no crash loop). */
  maxInterruptions: number;
  purgeIntervalMs: number;
}

type Outcome = { state: 'completed'; result: unknown } | { state: 'failed'; error: string };

/**
 * Queues, runs, cancels, resumes and purges jobs. Every job is stored before its id is answered; at startup
 * the jobs a dead process left in `scraping` are resumed from their frontier (in-flight URLs requeued), or
 * failed with the reason once they were interrupted too often. Attached jobs (the native crawl and its stream)
 * run on the same engine with an in-memory store and frontier: only their caller reads them.
 */
export class JobManager {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** The crawls this process works now, by job id: their hosts' throttling is part of the job's status. */
  private readonly crawls = new Map<string, CrawlRun>();
  private readonly gate: Gate;
  private readonly memory: MemoryJobStore;
  private readonly purgeTimer: NodeJS.Timeout;
  private readonly stopping = new AbortController();
  /** When a job last completed in this process (Firecrawl's queue status shows it). */
  private lastSuccess: number | null = null;

  constructor(private readonly deps: JobManagerDeps) {
    this.gate = new Gate('job', deps.maxRunning, Number.POSITIVE_INFINITY);
    // Writes were lost: every running job stops, and fails with the reason (a restart resumes nothing twice).
    deps.onStoreFailure((error) => {
      deps.log.error({ reason: error.message }, 'job store lost writes; running jobs stop');
      for (const run of this.running.values()) run.controller.abort(error);
    });
    this.memory = new MemoryJobStore(deps.ttlMs);
    this.purgeTimer = setInterval(() => void this.purge(), deps.purgeIntervalMs);
    this.purgeTimer.unref();
  }

  /** The durable store, or the 503 that says why there is none. */
  private get store(): JobStore {
    if (!this.deps.store) throw new StoreUnavailableError(`Job store unavailable: ${this.deps.storeError}`);
    return this.deps.store;
  }

  async get(id: string): Promise<JobRecord> {
    const job = await this.store.get(id);
    if (!job || !job.listed) throw new NotFoundError('Job not found');
    return job;
  }

  documents(id: string, skip: number, limit: number, maxBytes: number) {
    return this.store.documents(id, skip, limit, maxBytes);
  }

  errors(id: string) {
    return this.store.errors(id);
  }

  robotsBlocked(id: string) {
    return this.store.robotsBlocked(id);
  }

  active(): Promise<JobRecord[]> {
    return this.store.active();
  }

  /** Listed jobs in any state, newest first (the operators' jobs view). */
  recent(limit: number, filter?: RecentFilter): Promise<JobRecord[]> {
    return this.store.recent(limit, filter);
  }

  /** Worker processes alive in the fleet; null when this process works the jobs itself. */
  async workers(): Promise<number | null> {
    return this.deps.fleet ? this.deps.fleet.workersAlive() : null;
  }

  /**
   * What the caller should know about a job: the fields its request asked for that were ignored, the hosts
   * holding a crawl worked here back (Retry-After) or paused for it, and in a fleet with no live worker
   * process, that it waits for one.
   */
  async warningFor(job: JobRecord): Promise<string | null> {
    const throttled = job.state === 'scraping' ? await this.throttleWarning(job.id) : null;
    const parts = [(job.request as { warning?: string } | null)?.warning, throttled].filter(Boolean);
    const ignored = parts.length > 0 ? parts.join('. ') : null;
    if (!this.deps.fleet || job.state !== 'scraping') return ignored;
    if ((await this.deps.fleet.workersAlive().catch(() => 1)) > 0) return ignored;
    const idle =
      'No worker process is running: this job waits until one starts (npm run worker, or npm start without WORKERS=0)';
    return ignored ? `${idle}. ${ignored}` : idle;
  }

  /** Stores a crawl or batch job and starts it in the background; resolves once it is stored. */
  async startCrawl(kind: 'crawl' | 'batch_scrape', request: CrawlJobRequest): Promise<JobRecord> {
    if (request.webhook) await this.deps.webhooks.check(request.webhook);
    const job = await this.store.create({
      id: randomUUID(),
      kind,
      request,
      listed: true,
      total: kind === 'batch_scrape' ? request.spec.seeds.length : 0,
    });
    this.deps.metrics?.jobStarted(kind);
    await this.dispatch(job);
    return job;
  }

  /** The hosts holding a running crawl back or paused for it: from its run here, else from the fleet's workers. */
  private async throttleWarning(jobId: string): Promise<string | null> {
    const here = this.crawls.get(jobId)?.warning() ?? null;
    return here ?? (await this.deps.fleet?.crawlWarning(jobId).catch(() => null)) ?? null;
  }

  /** A stored job goes to this process's runner, or to the fleet's queue. */
  private async dispatch(job: JobRecord): Promise<void> {
    if (!this.deps.fleet) return this.launch(job, true);
    this.notify(job, 'started', {});
    await this.deps.fleet.submit(job);
  }

  /**
   * Works one queued share of a job in this process (the fleet's queue calls it): a crawl share crawls until
   * the shared frontier is done, a task runs to its end. A job cancelled elsewhere stops here within a
   * fraction of a second. Resolves when this share is over.
   */
  async work(jobId: string, signal: AbortSignal): Promise<void> {
    const job = await this.store.get(jobId);
    if (!job || job.state !== 'scraping') return;
    const controller = new AbortController();
    const stop = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const watch = setInterval(() => {
      void this.store.get(jobId).then(
        (now) => {
          if (!now || now.state !== 'scraping') controller.abort();
        },
        () => undefined,
      );
    }, 250);
    try {
      await this.execute(job, false, controller.signal);
    } finally {
      clearInterval(watch);
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * Jobs being worked and jobs waiting for their turn (MAX_RUNNING_JOBS here, or a worker of the fleet),
   * the most run at once by this process, and when a job last completed here.
   */
  async queueStatus(): Promise<QueueStatus> {
    const counts = this.deps.fleet
      ? await this.deps.fleet.queueCounts()
      : { active: this.gate.active, waiting: this.gate.waiting };
    return {
      ...counts,
      maxConcurrency: this.deps.maxRunning,
      mostRecentSuccess: this.lastSuccess === null ? null : new Date(this.lastSuccess).toISOString(),
    };
  }

  /** The signed deliveries of every job's webhooks (monitors send theirs through it too). */
  get webhooks(): WebhookSender {
    return this.deps.webhooks;
  }

  /** Stores a one-value job (extract, llms.txt) and starts it in the background. */
  async startTask(kind: JobKind, request: object, id: string = randomUUID()): Promise<JobRecord> {
    const { webhook } = request as { webhook?: WebhookTarget | null };
    if (webhook) await this.deps.webhooks.check(webhook);
    const job = await this.store.create({ id, kind, request, listed: true, total: 1 });
    this.deps.metrics?.jobStarted(kind);
    await this.dispatch(job);
    return job;
  }

  /**
   * Cancels a running job: it stops fetching at once and its documents stay readable. A job already over
   * answers JobFinishedError (409); an unknown one NotFoundError.
   */
  async cancel(id: string): Promise<void> {
    const job = await this.get(id);
    // Firecrawl's answer, word for word for crawls: "Crawl is already completed". Cancelling a cancelled job
    // again is no error.
    const over = (state: string): JobFinishedError =>
      new JobFinishedError(`${job.kind === 'crawl' ? 'Crawl' : 'Job'} is already ${state}`);
    if (job.state === 'cancelled') return;
    if (FINAL_STATES.has(job.state)) throw over(job.state);
    const changed = await this.store.finish(id, 'cancelled');
    if (changed) this.deps.metrics?.jobFinished(job.kind, 'cancelled');
    this.running.get(id)?.controller.abort();
    if (!changed) {
      const now = await this.get(id);
      if (now.state !== 'cancelled') throw over(now.state);
    }
  }

  /**
   * Runs a crawl whose caller reads it as it goes (the native /api/v1/crawl and its stream): an unlisted job on
   * the in-memory store, cancelled when `signal` aborts (the caller went away). Admission is the caller's
   * (the native crawl's gate), so these never wait behind durable jobs.
   */
  async attachCrawl(spec: CrawlSpec, sink: CrawlSink, signal: AbortSignal): Promise<CrawlSummary> {
    const job = await this.memory.create({
      id: randomUUID(),
      kind: 'crawl',
      request: null,
      listed: false,
      total: 0,
    });
    try {
      const summary = await withProfile(this.deps.profiles, spec.page.profile, (cookies) => {
        const deps = cookies ? { ...this.deps.crawl, cookies } : this.deps.crawl;
        const run = new CrawlRun(spec, new MemoryFrontier(), sink, deps, undefined, matchersFor(spec), {
          session: job.id, // the sticky key of proxy rotation
        });
        return run.run(signal, true);
      });
      await this.memory.finish(job.id, signal.aborted ? 'cancelled' : 'completed');
      return summary;
    } catch (err) {
      await this.memory.finish(job.id, 'failed', { error: toAppError(err).message });
      throw err;
    }
  }

  /** Resumes the jobs a dead process left running (called once at startup). */
  async resumeInterrupted(): Promise<void> {
    // With a fleet, the queue's stalled-job recovery hands a dead process's work to another one.
    if (!this.deps.store || this.deps.fleet) return;
    let interrupted: JobRecord[];
    try {
      interrupted = await this.deps.store.claimInterrupted();
    } catch (err) {
      // A full disk must not stop the service from starting (and a supervisor from crash-looping it).
      this.deps.log.error({ reason: toAppError(err).message }, 'interrupted jobs could not be resumed');
      return;
    }
    for (const job of interrupted) {
      if (job.interruptions > this.deps.maxInterruptions) {
        const error = `Job was interrupted ${job.interruptions} times (the service stopped while running it); giving up`;
        this.deps.log.warn({ jobId: job.id, interruptions: job.interruptions }, 'interrupted job failed');
        void this.settle(job, { state: 'failed', error });
        continue;
      }
      this.deps.log.info({ jobId: job.id, kind: job.kind }, 'resuming interrupted job');
      this.launch(job, false);
    }
  }

  private launch(job: JobRecord, fresh: boolean): void {
    const controller = new AbortController();
    const done = this.gate
      .enter(controller.signal)
      .then(async () => {
        try {
          if (!controller.signal.aborted) await this.execute(job, fresh, controller.signal);
        } finally {
          this.gate.leave();
        }
      })
      .catch((err: unknown) => {
        // Cancelled (or the service stopping) while waiting for its turn: nothing ran, nothing to report.
        if (!controller.signal.aborted) this.deps.log.error({ jobId: job.id, err }, 'job runner failed');
      })
      .finally(() => this.running.delete(job.id));
    this.running.set(job.id, { controller, done });
  }

  private async execute(job: JobRecord, fresh: boolean, signal: AbortSignal): Promise<void> {
    if (fresh) this.notify(job, 'started', {});
    // Aborted by a cancel (already final) or a clean stop (resumed at the next start): nothing to record.
    // Aborted because the store lost writes: the job fails with that reason.
    const stoppedByUs = (): boolean => signal.aborted && !(signal.reason instanceof StoreUnavailableError);
    const failure = (err: unknown): Outcome => {
      const e = toAppError(err);
      if (e.code === 'INTERNAL') this.deps.log.error({ jobId: job.id, err }, 'job failed');
      return { state: 'failed', error: e.code === 'INTERNAL' ? 'Internal error' : e.message };
    };
    let outcome: Outcome;
    try {
      let result: unknown;
      if (job.kind === 'crawl' || job.kind === 'batch_scrape') await this.runCrawl(job, fresh, signal);
      else {
        const runner = this.deps.tasks[job.kind];
        if (!runner) throw new StoreUnavailableError(`No runner for ${job.kind} jobs`);
        result = await runner(job.request, signal, job.id);
      }
      if (stoppedByUs()) return;
      outcome = signal.aborted ? failure(signal.reason) : { state: 'completed', result };
    } catch (err) {
      if (stoppedByUs()) return;
      outcome = failure(signal.aborted ? signal.reason : err);
    }
    await this.settle(job, outcome);
  }

  /**
   * Records how a job ended, retrying with backoff while the store fails, so that a job never stays in
   * `scraping` with nothing running it. The webhook goes out once the end is stored.
   */
  private async settle(job: JobRecord, outcome: Outcome): Promise<void> {
    for (let attempt = 0; !this.stopping.signal.aborted; attempt++) {
      try {
        const { state, ...rest } = outcome;
        // Before the write: a caller that sees the job completed must see it in the queue status too.
        if (state === 'completed') this.lastSuccess = Date.now();
        if (await this.store.finish(job.id, state, rest)) {
          this.deps.metrics?.jobFinished(job.kind, state);
          this.notify(job, state, state === 'failed' ? { error: outcome.error } : {});
        }
        return;
      } catch (err) {
        this.deps.log.warn(
          { jobId: job.id, reason: toAppError(err).message },
          'recording the end of a job failed',
        );
        await sleep(Math.min(30_000, 1000 * 2 ** attempt), this.stopping.signal);
      }
    }
  }

  private async runCrawl(job: JobRecord, fresh: boolean, signal: AbortSignal): Promise<void> {
    const request = job.request as CrawlJobRequest;
    if (this.deps.fleet) {
      // Several processes work this crawl at once: frontier, limit and host politeness live in Redis, every
      // share seeds (adds are idempotent), and the crawl is over only when nothing is queued or in flight.
      const state = this.deps.fleet.crawlState(job, request.spec);
      try {
        await this.crawlOn(job, state.frontier, true, signal, state, state.lanes);
        while (!signal.aborted && (await state.frontier.stats()).inFlight > 0) await sleep(200, signal);
      } finally {
        state.release();
      }
      return;
    }
    const frontier = this.deps.frontierFor(job.id);
    if (!fresh) await frontier.requeueInFlight();
    const freshFrontier = fresh || (await frontier.stats()).discovered === 0;
    await this.crawlOn(job, frontier, freshFrontier, signal, {});
  }

  private async crawlOn(
    job: JobRecord,
    frontier: Frontier,
    fresh: boolean,
    signal: AbortSignal,
    shared: { budget?: CrawlBudget; politeness?: Politeness },
    lanes?: number,
  ): Promise<void> {
    const store = this.store;
    const request = job.request as CrawlJobRequest;
    const spec = lanes === undefined ? request.spec : { ...request.spec, concurrency: lanes };
    const resumed = { crawled: job.completed, errors: fresh ? 0 : (await store.errors(job.id)).length };
    const sink: CrawlSink = {
      document: async (item, doc) => {
        const body = await this.deps.shapeDocument(doc, item.url, request, signal);
        if (await store.addDocument(job.id, item.url, JSON.stringify(body))) {
          this.notify(job, 'page', { data: [body] });
        }
      },
      failed: (url, e, attempts) => store.addError(job.id, url, e.code, e.message, attempts),
      robotsBlocked: (url) => store.addRobotsBlocked(job.id, url),
      stored: (url) => store.hasDocument(job.id, url),
      progress: (total) => void store.setTotal(job.id, total).catch(() => undefined),
    };
    // One cookie jar per job in this process (from its profile), written back at its end with saveChanges.
    await withProfile(this.deps.profiles, spec.page.profile, async (cookies) => {
      const deps = cookies ? { ...this.deps.crawl, cookies } : this.deps.crawl;
      const run = new CrawlRun(spec, frontier, sink, deps, resumed, matchersFor(request.spec), {
        ...shared,
        session: job.id, // the sticky key of proxy rotation: a host keeps its proxy for the whole job
        // A resumed crawl checks every page for a stored document; a shared frontier marks the items a dead
        // worker had (`retry`), and only those are checked.
        checkStored: !fresh,
      });
      this.crawls.set(job.id, run);
      const stopPublishing = this.deps.fleet
        ? publishWarnings(this.deps.fleet, job.id, () => run.warning())
        : null;
      try {
        await run.run(signal, fresh);
      } finally {
        stopPublishing?.();
        this.crawls.delete(job.id);
      }
    });
  }

  /** Sends a webhook event for `job` when it asked for one. */
  private notify(job: JobRecord, event: JobEvent, extra: { data?: unknown[]; error?: string }): void {
    const request = job.request as { webhook?: WebhookTarget | null } | null;
    const target = request?.webhook;
    if (!target) return;
    const { type, body } = this.deps.webhookEvent(job, event, extra);
    this.deps.webhooks.send(job.id, target, type, body);
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.deps.store?.purgeExpired(Date.now());
      if (purged) this.deps.log.info({ purged }, 'expired jobs purged');
      await this.memory.purgeExpired(Date.now());
      await this.deps.pages.purge(Date.now() - this.deps.pagesTtlMs);
      await this.deps.profiles?.purge(Date.now());
    } catch (err) {
      this.deps.log.warn({ err }, 'purging expired jobs failed');
    }
  }

  /** Purges now (tests, and the timer). */
  purgeNow(): Promise<void> {
    return this.purge();
  }

  /**
   * Stops every running job without ending it: a clean stop keeps jobs in `scraping` so the next start
   * resumes them, and does not count as an interruption.
   */
  async close(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    clearInterval(this.purgeTimer);
    const runs = [...this.running.entries()];
    for (const [, run] of runs) run.controller.abort();
    if (this.deps.store) {
      await Promise.all(runs.map(([id]) => this.deps.store!.suspend(id).catch(() => undefined)));
    }
    // Pages in flight end at their own deadline; their writes must land before the file closes.
    await Promise.race([Promise.allSettled(runs.map(([, run]) => run.done)), sleep(10_000)]);
    await this.deps.fleet?.close();
    await this.deps.webhooks.close();
    await this.deps.store?.close();
  }
}
