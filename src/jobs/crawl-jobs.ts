import type { CrawlBudget } from '../crawl/budget.js';
import type { Frontier } from '../crawl/frontier.js';
import { pausedWarning } from '../crawl/throttle.js';
import type { SharedPace } from '../crawl/throttle.js';
import type { Politeness } from '../crawl/politeness.js';
import { MemoryFrontier } from '../crawl/memory-frontier.js';
import { sleep } from '../lib/sleep.js';
import { ChallengePasses } from '../pipeline/challenge-pass.js';
import type { PageDocument } from '../schemas/page.js';
import type { Caller } from '../tenants/tenant.js';
import { callerFor } from '../tenants/tenant.js';
import type { Profiles } from './stores/browser-state/profile-store.js';
import type { JobRecord, JobStore } from './stores/job-store.js';
import { withProfile } from './profile-session.js';
import { CrawlRun } from './crawl-run.js';
import type { CrawlDeps, CrawlSink, CrawlSpec, CrawlSummary } from './crawl-run.js';
import { matchersFor } from './crawl-matchers.js';
import { publishWarnings } from './fleet-warning.js';
import type { Fleet } from './fleet-port.js';
import type { WebhookTarget } from './webhooks.js';

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

/** Turns a page into the stored document of a job (the shape of the surface that started it). */
export type DocumentShaper = (
  doc: PageDocument,
  sourceUrl: string,
  request: CrawlJobRequest,
  signal: AbortSignal,
  /** The job's owner: whose page it is (changeTracking compares with that tenant's previous version). */
  owner: string,
) => Promise<Record<string, unknown>>;

/** What running crawls needs from the job manager. */
export interface CrawlJobsDeps {
  /** The durable store (StoreUnavailableError when there is none). */
  store: () => JobStore;
  /** A durable job's frontier when this process works it alone (no fleet). */
  frontierFor: (jobId: string) => Frontier;
  fleet: Fleet | null;
  crawl: CrawlDeps;
  profiles?: Profiles;
  shapeDocument: DocumentShaper;
  /** A document of `job` was stored: its `page` event goes out. */
  stored: (job: JobRecord, body: Record<string, unknown>) => void;
}

/**
 * Runs the crawls of crawl and batch jobs in this process: a durable job on its frontier (the SQLite one, or
 * with a fleet its share of the one in Redis) and the attached crawls of the native API. It keeps the runs it
 * works, whose hosts' throttling is part of a job's status.
 */
export class CrawlJobs {
  private readonly crawls = new Map<string, CrawlRun>();

  constructor(private readonly deps: CrawlJobsDeps) {}

  /** The hosts holding a running crawl back or paused for it: from its run here, else from the fleet's workers. */
  async warning(jobId: string): Promise<string | null> {
    const here = this.crawls.get(jobId)?.warning() ?? null;
    return here ?? (await this.deps.fleet?.crawlWarning(jobId).catch(() => null)) ?? null;
  }

  /**
   * A crawl's hosts warning: while it runs, from its run here or the fleet's workers; once it ended, its paused
   * hosts from its errors (whichever process paused them).
   */
  async hostsWarning(job: JobRecord): Promise<string | null> {
    if (job.state === 'scraping') return this.warning(job.id);
    if (job.kind !== 'crawl' && job.kind !== 'batch_scrape') return null;
    return pausedWarning(await this.deps.store().errors(job.id));
  }

  /** Crawls a stored job until its frontier is done or `signal` aborts (`fresh`: not resumed). */
  async run(job: JobRecord, fresh: boolean, signal: AbortSignal): Promise<void> {
    const request = job.request as CrawlJobRequest;
    if (this.deps.fleet) {
      // Several processes work this crawl at once: frontier, limit, host politeness and pace live in Redis, every
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

  /** Crawls `spec` for a caller attached to it (`sink` hears every page), on a frontier in memory. */
  attached(
    jobId: string,
    spec: CrawlSpec,
    sink: CrawlSink,
    signal: AbortSignal,
    caller: Caller,
  ): Promise<CrawlSummary> {
    return withProfile(this.deps.profiles, spec.page.profile, caller.tenant, (cookies) => {
      const deps = { ...this.deps.crawl, cookies, challenges: new ChallengePasses(cookies) };
      const run = new CrawlRun(spec, new MemoryFrontier(), sink, deps, undefined, matchersFor(spec), {
        session: jobId, // the sticky key of proxy rotation
        caller,
      });
      return run.run(signal, true);
    });
  }

  private async crawlOn(
    job: JobRecord,
    frontier: Frontier,
    fresh: boolean,
    signal: AbortSignal,
    shared: { budget?: CrawlBudget; politeness?: Politeness; pace?: SharedPace },
    lanes?: number,
  ): Promise<void> {
    const store = this.deps.store();
    const request = job.request as CrawlJobRequest;
    const spec = lanes === undefined ? request.spec : { ...request.spec, concurrency: lanes };
    const resumed = { crawled: job.completed, errors: fresh ? 0 : (await store.errors(job.id)).length };
    const sink: CrawlSink = {
      document: async (item, doc) => {
        const body = await this.deps.shapeDocument(doc, item.url, request, signal, job.owner);
        if (await store.addDocument(job.id, item.url, JSON.stringify(body))) this.deps.stored(job, body);
      },
      failed: (url, e, attempts) => store.addError(job.id, url, e.code, e.message, attempts),
      robotsBlocked: (url) => store.addRobotsBlocked(job.id, url),
      stored: (url) => store.hasDocument(job.id, url),
      progress: (total) => void store.setTotal(job.id, total).catch(() => undefined),
    };
    // One cookie jar per job in this process (from its profile), written back at its end with saveChanges;
    // the clearances of the challenges the job passes go into it.
    await withProfile(this.deps.profiles, spec.page.profile, job.owner, async (cookies) => {
      const deps = { ...this.deps.crawl, cookies, challenges: new ChallengePasses(cookies) };
      const run = new CrawlRun(spec, frontier, sink, deps, resumed, matchersFor(request.spec), {
        ...shared,
        session: job.id, // the sticky key of proxy rotation: a host keeps its proxy for the whole job
        caller: callerFor(job.owner),
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
}
