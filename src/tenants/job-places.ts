import { LimitReachedError } from '../errors.js';
import { SerialByKey } from '../lib/serial-by-key.js';
import { limitText } from './tenant.js';
import type { TenantLimits } from './tenant.js';

/** The tenant limits that count jobs not ended: every job (`jobs`), and agent runs among them (`agentRuns`). */
export type JobLimit = 'agentRuns' | 'jobs';

/** What a tenant holds of each counted limit when its next job is asked for. */
export type JobsHeld = Record<JobLimit, number>;

/**
 * A 429's Retry-After for a job limit: when one of the tenant's jobs ends is not known (a crawl may take
 * minutes or hours), so this is how soon asking again is worth it, not a promise.
 */
export const JOB_RETRY_AFTER_SECONDS = 30;

/**
 * Admission of a tenant's jobs against the limits they count for. The count and the job's creation are one
 * step for every process that admits jobs: simultaneous starts of one tenant are counted when they are asked,
 * each seeing the ones admitted before it. A job frees its place once it ends (completed, failed, cancelled,
 * expired or purged); a job resumed after a crash keeps it. LocalJobPlaces counts in the store of the one
 * process that owns it; RedisJobPlaces (REDIS_URL) in Redis, atomically for the fleet.
 */
export interface JobPlaces {
  /**
   * Runs `create` (the store's write of job `id`) when `owner` holds fewer jobs than each of `counted` allows
   * in `limits`; else LimitReachedError (429) naming the first limit reached, with a Retry-After. Throws
   * StoreUnavailableError when the count cannot be read.
   */
  admit<T>(
    owner: string,
    id: string,
    counted: readonly JobLimit[],
    limits: TenantLimits,
    create: () => Promise<T>,
  ): Promise<T>;
}

/** Starts of one owner waiting for the one being counted; beyond it, the Gate's 503. */
const MAX_QUEUED_STARTS = 1000;

/**
 * Counts a tenant's jobs in this process's store (one process owns the SQLite file): starts of one tenant
 * are counted and created one at a time, in arrival order.
 */
export class LocalJobPlaces implements JobPlaces {
  private readonly starting = new SerialByKey('job start', MAX_QUEUED_STARTS);

  /** `held`: what the owner's jobs not ended count for, read from the store. */
  constructor(private readonly held: (owner: string) => Promise<JobsHeld>) {}

  admit<T>(
    owner: string,
    _id: string,
    counted: readonly JobLimit[],
    limits: TenantLimits,
    create: () => Promise<T>,
  ): Promise<T> {
    if (counted.length === 0) return create();
    return this.starting.run(owner, async () => {
      const held = await this.held(owner);
      const reached = counted.find((limit) => held[limit] >= limits[limit]);
      if (reached) throw jobLimitError(owner, reached, limits, held[reached]);
      return create();
    });
  }
}

const WHAT: Record<JobLimit, string> = { jobs: 'jobs', agentRuns: 'agent runs' };

/** The 429 of a job limit: the tenant, what it holds, the limit as it was set, and what frees a place. */
export function jobLimitError(
  owner: string,
  limit: JobLimit,
  limits: TenantLimits,
  held: number,
): LimitReachedError {
  return new LimitReachedError(
    `Tenant ${owner} has ${held} ${WHAT[limit]} not ended, the most it may (${limitText(limit, limits)}): ` +
      'start this one once one has ended or been cancelled',
    { retryAfterSeconds: JOB_RETRY_AFTER_SECONDS },
  );
}
