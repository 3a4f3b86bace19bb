import { randomUUID } from 'node:crypto';
import type { Frontier } from '../crawl/frontier.js';
import { JobFinishedError, NotFoundError, StoreUnavailableError, toAppError } from '../errors.js';
import type { JobKind, JobRecord, JobStore, NewJob, OwnerFilter, RecentFilter } from './stores/job-store.js';
import { FINAL_STATES } from './stores/job-store.js';
import { MemoryJobStore } from './stores/memory-job-store.js';
import { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { sleep } from '../lib/sleep.js';
import type { PageStore } from './stores/page-store.js';
import type { Profiles } from './stores/browser-state/profile-store.js';
import { CrawlJobs } from './crawl-jobs.js';
import type { CrawlJobRequest, DocumentShaper } from './crawl-jobs.js';
import type { CrawlDeps, CrawlSink, CrawlSpec, CrawlSummary } from './crawl-run.js';
import type { WebhookSender, WebhookTarget } from './webhooks.js';
import type { Fleet, QueueStatus } from './fleet-port.js';
import { LocalJobPlaces } from '../tenants/job-places.js';
import type { JobLimit, JobPlaces, JobsHeld } from '../tenants/job-places.js';
import { meteredAs } from '../tenants/metering.js';
import { callerFor, canSee } from '../tenants/tenant.js';
import type { Caller, LimitsOf } from '../tenants/tenant.js';

export type { CrawlJobRequest, DocumentShaper } from './crawl-jobs.js';

/** The moments of a job a webhook hears about. */
export type JobEvent = 'started' | 'page' | 'completed' | 'failed' | 'cancelled';

/** A job event as the webhook's event name and body (the surface that started the job decides both). */
export type WebhookEvents = (
  job: JobRecord,
  event: JobEvent,
  extra: { data?: unknown[]; error?: string },
) => { type: string; body: Record<string, unknown> };

/** What every run of a job is given, whichever process works it. */
export interface JobRun {
  /** Aborts on a cancel, a clean stop or the store failing. */
  signal: AbortSignal;
  /** Where a run that records its steps (the agent) keeps them, so that a resumed run replays instead of repeating. */
  jobId: string;
  /**
   * The job's owner (`callerFor(job.owner)`): every call the run makes into the services and the page pipeline
   * acts for it, so that what it fetches is that tenant's, counted to it and within its limits.
   */
  caller: Caller;
}

/** Runs a job that produces one value (extract, llms.txt, an agent run, a monitor check) from its stored request. */
export type TaskRunner = (request: unknown, run: JobRun) => Promise<unknown>;

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
  /** Each tenant's limits: its jobs not ended (`jobs`, and `agentRuns` among them) are counted at each start. */
  limits: LimitsOf;
  /** Where a tenant's jobs are counted for the whole fleet (Redis); null: in `store`, by this process. */
  places: JobPlaces | null;
  /** A job found interrupted more often than this fails instead of resuming (no crash loop). */
  maxInterruptions: number;
  purgeIntervalMs: number;
  /** Tenants' usage of the day: a start past a daily limit is a 429; purged and written with the stores. */
  usage?: JobUsage;
}

/** What the job engine asks of the tenants' usage (src/tenants/usage.ts). */
export interface JobUsage {
  /** Throws LimitReachedError when `owner` may start no job of `kind` today. */
  admitJob(owner: string, kind: JobKind): Promise<void>;
  purge(): Promise<unknown>;
  /** Writes what is pending; called before the stores close. */
  close(): Promise<void>;
}

type Outcome = { state: 'completed'; result: unknown } | { state: 'failed'; error: string };

/**
 * The limits a job of each kind counts against, the narrower first (the one a 429 names when both are
 * reached). Monitor checks are the service's own work on a monitor's schedule, not a start a tenant asks for.
 */
const COUNTED: Record<JobKind, readonly JobLimit[]> = {
  crawl: ['jobs'],
  batch_scrape: ['jobs'],
  extract: ['jobs'],
  llmstxt: ['jobs'],
  agent: ['agentRuns', 'jobs'],
  monitor_check: [],
};

/** A tenant's newest jobs read for the last completion its queue status shows. */
const RECENT_FOR_SUCCESS = 100;

/**
 * Queues, runs, cancels, resumes and purges jobs. Every job is stored before its id is answered; at startup
 * the jobs a dead process left in `scraping` are resumed from their frontier (in-flight URLs requeued), or
 * failed with the reason once they were interrupted too often. Attached jobs (the native crawl and its stream)
 * run on the same engine with an in-memory store and frontier: only their caller reads them.
 */
export class JobManager {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Jobs this process works now (past their turn), by id: the queue status of one tenant counts them. */
  private readonly working = new Set<string>();
  private readonly crawls: CrawlJobs;
  private readonly gate: Gate;
  private readonly places: JobPlaces;
  private readonly memory: MemoryJobStore;
  private readonly purgeTimer: NodeJS.Timeout;
  private readonly stopping = new AbortController();
  /** When a job last completed in this process (Firecrawl's queue status shows it). */
  private lastSuccess: number | null = null;

  constructor(private readonly deps: JobManagerDeps) {
    this.gate = new Gate('job', deps.maxRunning, Number.POSITIVE_INFINITY);
    this.places = deps.places ?? new LocalJobPlaces((owner) => this.held(owner));
    this.crawls = new CrawlJobs({
      ...deps,
      store: () => this.store,
      stored: (job, body) => this.notify(job, 'page', { data: [body] }),
    });
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

  /**
   * A job as `caller` may read it: NotFoundError, the same as for an id never given, unless it is the caller's
   * own (or the caller is an operator), so that another tenant cannot learn that the id exists.
   */
  async get(id: string, caller: Caller): Promise<JobRecord> {
    const job = await this.getUnchecked(id);
    if (!canSee(caller, job.owner)) throw new NotFoundError('Job not found');
    return job;
  }

  /** A listed job whoever owns it: for the service's own readers (monitors, workers), never for a caller. */
  async getUnchecked(id: string): Promise<JobRecord> {
    const job = await this.store.get(id);
    if (!job || !job.listed) throw new NotFoundError('Job not found');
    return job;
  }

  /** Documents of a job the caller read with `get` first (the read that answers 404 across tenants). */
  documents(id: string, skip: number, limit: number, maxBytes: number) {
    return this.store.documents(id, skip, limit, maxBytes);
  }

  /** Failed URLs of a job the caller read with `get` first. */
  errors(id: string) {
    return this.store.errors(id);
  }

  /** Robots-blocked URLs of a job the caller read with `get` first. */
  robotsBlocked(id: string) {
    return this.store.robotsBlocked(id);
  }

  /** Listed jobs still running, oldest first: of one owner (`listedOwner(caller)`), or every owner's. */
  active(filter?: OwnerFilter): Promise<JobRecord[]> {
    return this.store.active(filter);
  }

  /** Listed jobs in any state, newest first: of one owner (`listedOwner(caller)`), or every owner's. */
  recent(limit: number, filter?: RecentFilter): Promise<JobRecord[]> {
    return this.store.recent(limit, filter);
  }

  /** Runs `work` alone under `key` across the fleet; in one process, as it comes (callers serialize there). */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.deps.fleet ? this.deps.fleet.exclusive(key, work) : work();
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
    const throttled = await this.crawls.hostsWarning(job);
    const parts = [(job.request as { warning?: string } | null)?.warning, throttled].filter(Boolean);
    const ignored = parts.length > 0 ? parts.join('. ') : null;
    if (!this.deps.fleet || job.state !== 'scraping') return ignored;
    if ((await this.deps.fleet.workersAlive().catch(() => 1)) > 0) return ignored;
    const idle =
      'No worker process is running: this job waits until one starts (npm run worker, or npm start without WORKERS=0)';
    return ignored ? `${idle}. ${ignored}` : idle;
  }

  /** Stores a crawl or batch job of `owner` and starts it in the background; resolves once it is stored. */
  async startCrawl(
    kind: 'crawl' | 'batch_scrape',
    request: CrawlJobRequest,
    owner: string,
  ): Promise<JobRecord> {
    if (request.webhook) await this.deps.webhooks.check(request.webhook);
    const job = await this.create({
      id: randomUUID(),
      kind,
      owner,
      request,
      listed: true,
      total: kind === 'batch_scrape' ? request.spec.seeds.length : 0,
    });
    this.deps.metrics?.jobStarted(kind);
    await this.dispatch(job);
    return job;
  }

  /**
   * Stores a new job once its owner's limits admit it: counted when it is asked for, with the starts before it
   * (across the fleet with Redis), else a 429 naming the limit.
   */
  private async create(job: NewJob): Promise<JobRecord> {
    const store = this.store;
    await this.deps.usage?.admitJob(job.owner, job.kind);
    const limits = this.deps.limits(job.owner);
    return this.places.admit(job.owner, job.id, COUNTED[job.kind], limits, () => store.create(job));
  }

  /** What the jobs of `owner` not ended count for, read from the store. */
  private async held(owner: string): Promise<JobsHeld> {
    const running = await this.store.active({ owner });
    const count = (limit: JobLimit): number =>
      running.filter((job) => COUNTED[job.kind].includes(limit)).length;
    return { jobs: count('jobs'), agentRuns: count('agentRuns') };
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
   * the most run at once by this process, and when a job last completed here. For a caller that is not an
   * operator, its own tenant's jobs only: its running jobs being worked or waiting, and its last completion.
   */
  async queueStatus(caller?: Caller): Promise<QueueStatus> {
    const maxConcurrency = this.deps.maxRunning;
    if (!caller || caller.admin) {
      const counts = this.deps.fleet
        ? await this.deps.fleet.queueCounts()
        : { active: this.gate.active, waiting: this.gate.waiting };
      const mostRecentSuccess = this.lastSuccess === null ? null : new Date(this.lastSuccess).toISOString();
      return { ...counts, maxConcurrency, mostRecentSuccess };
    }
    const owner = caller.tenant;
    const [running, working, recent] = await Promise.all([
      this.store.active({ owner }),
      this.deps.fleet ? this.deps.fleet.workedJobs() : this.working,
      this.store.recent(RECENT_FOR_SUCCESS, { owner }),
    ]);
    const active = running.filter((job) => working.has(job.id)).length;
    const done = recent.filter((job) => job.state === 'completed').map((job) => job.updatedAt);
    const mostRecentSuccess = done.length > 0 ? new Date(Math.max(...done)).toISOString() : null;
    return { active, waiting: running.length - active, maxConcurrency, mostRecentSuccess };
  }

  /** The signed deliveries of every job's webhooks (monitors send theirs through it too). */
  get webhooks(): WebhookSender {
    return this.deps.webhooks;
  }

  /** Stores a one-value job (extract, llms.txt, an agent run, a monitor check) of `owner` and starts it. */
  async startTask(
    kind: JobKind,
    request: object,
    owner: string,
    id: string = randomUUID(),
  ): Promise<JobRecord> {
    const { webhook } = request as { webhook?: WebhookTarget | null };
    if (webhook) await this.deps.webhooks.check(webhook);
    const job = await this.create({ id, kind, owner, request, listed: true, total: 1 });
    this.deps.metrics?.jobStarted(kind);
    await this.dispatch(job);
    return job;
  }

  /**
   * Cancels a running job: it stops fetching at once and its documents stay readable. A job already over
   * answers JobFinishedError (409); an unknown one, or another tenant's, NotFoundError.
   */
  async cancel(id: string, caller: Caller): Promise<void> {
    const job = await this.get(id, caller);
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
      const now = await this.getUnchecked(id);
      if (now.state !== 'cancelled') throw over(now.state);
    }
  }

  /**
   * Runs a crawl whose caller reads it as it goes (the native /api/v1/crawl and its stream): an unlisted job on
   * the in-memory store, cancelled when `signal` aborts (the caller went away). Admission is the caller's
   * (the native crawl's gate), so these never wait behind durable jobs. `caller`: whom its pages are for.
   */
  async attachCrawl(
    spec: CrawlSpec,
    sink: CrawlSink,
    signal: AbortSignal,
    caller: Caller,
  ): Promise<CrawlSummary> {
    const job = await this.memory.create({
      id: randomUUID(),
      kind: 'crawl',
      owner: caller.tenant,
      request: null,
      listed: false,
      total: 0,
    });
    try {
      const summary = await this.crawls.attached(job.id, spec, sink, signal, caller);
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
      .enter(controller.signal, job.owner) // owners with jobs waiting take turns
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
    this.working.add(job.id);
    try {
      let result: unknown;
      // Everything the run starts (pages, the LLM, the browser) is metered to the job's owner.
      if (job.kind === 'crawl' || job.kind === 'batch_scrape')
        await meteredAs(job.owner, () => this.crawls.run(job, fresh, signal));
      else {
        const runner = this.deps.tasks[job.kind];
        if (!runner) throw new StoreUnavailableError(`No runner for ${job.kind} jobs`);
        const run = { signal, jobId: job.id, caller: callerFor(job.owner) };
        result = await meteredAs(job.owner, () => runner(job.request, run));
      }
      if (stoppedByUs()) return;
      outcome = signal.aborted ? failure(signal.reason) : { state: 'completed', result };
    } catch (err) {
      if (stoppedByUs()) return;
      outcome = failure(signal.aborted ? signal.reason : err);
    } finally {
      this.working.delete(job.id);
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
      await this.deps.usage?.purge();
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
    await this.deps.usage?.close();
    await this.deps.store?.close();
  }
}
