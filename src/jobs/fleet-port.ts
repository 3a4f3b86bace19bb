import type { CrawlBudget } from '../crawl/budget.js';
import type { Frontier } from '../crawl/frontier.js';
import type { Politeness } from '../crawl/politeness.js';
import type { SharedPace } from '../crawl/throttle.js';
import type { JobRecord } from './stores/job-store.js';
import type { CrawlSpec } from './crawl-run.js';

/** A crawl's state shared by every process working it. */
export interface SharedCrawlState {
  frontier: Frontier;
  budget: CrawlBudget;
  politeness: Politeness;
  /** Each host's pace (AIMD), from every worker's answers. */
  pace: SharedPace;
  /** Pages this share fetches at once: its part of the crawl's concurrency, which holds for the whole fleet. */
  lanes: number;
  /** Stops this process's part (lease renewals); the state itself stays for the others. */
  release(): void;
}

/** How jobs reach the processes that work them when there are several (services/fleet.ts). */
export interface Fleet {
  /** Queues a stored job for the fleet's workers. */
  submit(job: JobRecord): Promise<void>;
  crawlState(job: JobRecord, spec: CrawlSpec): SharedCrawlState;
  /** Worker processes seen alive in the last seconds. */
  workersAlive(): Promise<number>;
  /**
   * What the share `share` of a running crawl warns of now (hosts holding it back or paused), for `ttlMs`: any
   * API process answers it in the job's status. Null clears that share's.
   */
  setCrawlWarning(jobId: string, share: string, warning: string | null, ttlMs: number): Promise<void>;
  /** The warnings of the crawl's shares that still hold, each once. */
  crawlWarning(jobId: string): Promise<string | null>;
  /**
   * Runs `work` while no other process of the fleet runs work under `key` (a lease in Redis, long enough for a
   * read-then-write such as an agent thread's next turn; a dead holder's runs out).
   */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Queued shares being worked and waiting for a worker, across the fleet. */
  queueCounts(): Promise<{ active: number; waiting: number }>;
  /** The ids of the jobs a share of which is being worked now, across the fleet. */
  workedJobs(): Promise<Set<string>>;
  close(): Promise<void>;
}

/** The job queue as the queue-status route shows it. */
export interface QueueStatus {
  active: number;
  waiting: number;
  /** MAX_RUNNING_JOBS: the most jobs run at once by this process. */
  maxConcurrency: number;
  /** When a job last completed in this process (ISO), null before the first. */
  mostRecentSuccess: string | null;
}
