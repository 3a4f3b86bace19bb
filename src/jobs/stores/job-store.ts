/** What a job does; each kind has its own request and result shapes. */
export const JOB_KINDS = ['crawl', 'batch_scrape', 'extract', 'llmstxt', 'agent', 'monitor_check'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** `scraping` until it ends; the three others are final (Firecrawl's names, which its SDKs poll for). */
export type JobState = 'scraping' | 'completed' | 'failed' | 'cancelled';

export const FINAL_STATES: ReadonlySet<JobState> = new Set(['completed', 'failed', 'cancelled']);

export interface JobRecord {
  id: string;
  kind: JobKind;
  /**
   * The tenant the job runs for and the only one that reads it (operators read every tenant's): the caller that
   * started it, a monitor's owner for its checks. Jobs stored before tenants existed are `default`'s.
   */
  owner: string;
  state: JobState;
  /** The job's request as the service normalized it (what a resumed job runs again). */
  request: unknown;
  /** False for jobs a caller is attached to (the native crawl and its stream): never listed or resumed. */
  listed: boolean;
  /** Pages the job expects to produce so far (grows while a crawl discovers URLs). */
  total: number;
  /** Documents stored. */
  completed: number;
  /** Why a failed job failed. */
  error: string | null;
  /** The outcome of jobs that produce one value (extract, llmstxt). */
  result: unknown;
  createdAt: number;
  updatedAt: number;
  /**
   * When the job and everything it stored is purged: JOB_TTL_HOURS after it ended. While it runs, JOB_TTL_HOURS
   * after its creation is reported (as Firecrawl does), but a running job is never purged.
   */
  expiresAt: number;
  /** Times the job was found interrupted (its process died) and resumed. */
  interruptions: number;
}

export interface NewJob {
  id: string;
  kind: JobKind;
  owner: string;
  request: unknown;
  listed: boolean;
  /** Expected pages, known up front for batches. */
  total: number;
}

export interface JobError {
  /** A unique id of this error entry. */
  id: string;
  url: string;
  code: string;
  error: string;
  at: number;
  /** Fetches of the page, the first included (0: never fetched, its host was paused). */
  attempts: number;
}

/** Which listed jobs `active` answers: of one owner (absent: every owner's). */
export interface OwnerFilter {
  owner?: string;
}

/** Which listed jobs `recent` answers: of one owner, of one kind, created before a time (ms). */
export interface RecentFilter extends OwnerFilter {
  kind?: JobKind;
  /** Only jobs created strictly before this time (paging: the last answer's oldest `createdAt`). */
  before?: number;
}

export interface DocumentPage {
  /** Document bodies as stored (JSON text), in the order they were produced. */
  documents: string[];
  /** Index of the first document after this page (skip value of the next page). */
  nextSkip: number;
  /** Whether documents are stored after this page. */
  more: boolean;
}

/**
 * Where jobs live. Lifecycle contract (every adapter; one contract suite runs against each):
 * - `create` stores the job in `scraping` before its id is given to anyone; it resolves once stored.
 * - a job leaves `scraping` exactly once, through `finish`; `finish` on a job already final changes
 *   nothing and answers false, so a cancel racing a completion has one winner.
 * - `addDocument` stores at most one document per (job, url): a page fetched again after a crash is not
 *   duplicated; `completed` counts documents stored. Documents keep their production order.
 * - every promise resolves after the write is durable in the adapter's terms (SQLite: committed).
 * - `purgeExpired` removes jobs whose `expiresAt` passed, with their documents, errors and frontier.
 */
export interface JobStore {
  create(job: NewJob): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /** Listed jobs still in `scraping`, oldest first. */
  active(filter?: OwnerFilter): Promise<JobRecord[]>;
  /** Listed jobs in any state, newest first, at most `limit` (the operators' jobs view, the agent list). */
  recent(limit: number, filter?: RecentFilter): Promise<JobRecord[]>;
  /** Sets `total` (never below `completed`). */
  setTotal(id: string, total: number): Promise<void>;
  /** Stores a document unless one exists for (id, url); true when stored. */
  addDocument(id: string, url: string, body: string): Promise<boolean>;
  /** Whether a document is stored for (id, url). */
  hasDocument(id: string, url: string): Promise<boolean>;
  /** Documents from index `skip`: at most `limit` of them and, past the first, at most `maxBytes` bytes. */
  documents(id: string, skip: number, limit: number, maxBytes: number): Promise<DocumentPage>;
  /** Records a failed URL (one entry per URL; the newest failure wins). */
  /** A page of the job failed for good after `attempts` fetches (0: it was never fetched). */
  addError(id: string, url: string, code: string, error: string, attempts: number): Promise<void>;
  errors(id: string): Promise<JobError[]>;
  addRobotsBlocked(id: string, url: string): Promise<void>;
  robotsBlocked(id: string): Promise<string[]>;
  /**
   * Moves a job from `scraping` to a final state (with the failure reason or the result) and starts its
   * expiry clock; false when the job was already final.
   */
  finish(id: string, state: JobState, outcome?: { error?: string; result?: unknown }): Promise<boolean>;
  /** The process stops cleanly while the job runs: the next start resumes it without counting an interruption. */
  suspend(id: string): Promise<void>;
  /** Listed jobs in `scraping` at startup: their process died. Counts one more interruption on each. */
  claimInterrupted(): Promise<JobRecord[]>;
  /** Deletes expired jobs and what they stored; answers how many jobs went. */
  purgeExpired(now: number): Promise<number>;
  close(): Promise<void>;
}
