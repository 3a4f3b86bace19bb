import { randomUUID } from 'node:crypto';
import { DelayedError, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobRecord } from './stores/job-store.js';
import { RedisBudget, RedisPace, RedisPoliteness, redisNow } from './stores/redis-crawl-state.js';
import { RedisFrontier } from './stores/redis-frontier.js';
import { jobsKey } from './stores/redis-job-places.js';
import { ServiceBusyError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/sleep.js';
import type { CrawlSpec } from './crawl-run.js';
import type { Fleet, SharedCrawlState } from './fleet-port.js';

const QUEUE = 'pagewright-jobs';
const WORKERS = 'pw:workers';
/** How long a fleet-wide lock is held at most (its holder died), and how long a caller waits for one. */
const LOCK_LEASE_MS = 30_000;
const LOCK_WAIT_MS = 10_000;
const HEARTBEAT_MS = 3000;
/** A second share of a job this process already works waits this long for another worker, this many times. */
const SPREAD_DELAY_MS = 250;
const SPREAD_TRIES = 4;
/** BullMQ's lowest priority (the highest number it takes). */
const LAST_PRIORITY = 2_097_151;

export interface FleetOptions {
  redisUrl: string;
  /** Jobs (shares) this process works at once; 0: this process only serves the API. */
  concurrency: number;
  /** Shares a crawl is split into: that many processes (or slots) can work one crawl at once. */
  shares: number;
  /** How long a dead worker's share waits before another worker takes it over (BullMQ's stalled check). */
  stalledMs: number;
  /** Lease of a frontier item: a dead worker's pages go back to the queue after it. */
  leaseMs: number;
  hostConcurrency: number;
  log: Logger;
}

/** A connection that keeps retrying while Redis is away (BullMQ needs no per-command retry limit). */
export function connect(url: string, log: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  let reported = false;
  redis.on('error', (err: Error) => {
    if (!reported) log.warn({ reason: err.message }, 'Redis connection lost; retrying');
    reported = true;
  });
  redis.on('ready', () => (reported = false));
  return redis;
}

/**
 * Jobs on BullMQ and Redis, for any number of API and worker processes on any number of machines. A job is
 * queued as `shares` BullMQ jobs; each worker process takes shares up to its concurrency and works them
 * (JobManager.work): crawl shares on the job's shared frontier, limit and host politeness in Redis. A worker
 * killed mid-crawl loses nothing: BullMQ's stalled-job check gives its share to another worker, and its
 * pages in flight return to the frontier when their lease runs out. A clean stop puts its shares back at once.
 */
export class BullFleet implements Fleet {
  private readonly redis: Redis;
  private readonly queue: Queue;
  /** Connections handed to BullMQ: it does not close a connection it was given, so close() does. */
  private readonly given: Redis[] = [];
  private worker: Worker | null = null;
  private readonly politeness: RedisPoliteness;
  private readonly id = randomUUID();
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly stopping = new AbortController();
  /** Shares this process works, by job. */
  private readonly working = new Map<string, number>();

  constructor(private readonly options: FleetOptions) {
    this.redis = connect(options.redisUrl, options.log);
    this.queue = new Queue(QUEUE, { connection: this.give(connect(options.redisUrl, options.log)) });
    this.queue.on('error', () => undefined); // the shared connection reports Redis being away
    this.politeness = new RedisPoliteness(this.redis, options.hostConcurrency, options.leaseMs);
  }

  /** Starts taking shares (worker role): `work` runs one share until it is over. */
  startWorking(work: (jobId: string, signal: AbortSignal) => Promise<void>): void {
    if (this.options.concurrency <= 0) return;
    this.worker = new Worker(
      QUEUE,
      async (job: Job, token?: string) => {
        const data = job.data as { jobId?: unknown; spread?: unknown } | null;
        const jobId = data?.jobId;
        if (typeof jobId !== 'string' || jobId === '') {
          // Never retried: a queue entry that names no job can never succeed.
          throw new UnrecoverableError(`malformed queue entry ${job.id}: no jobId`);
        }
        if (token && (await this.spreadElsewhere(job, jobId, Number(data?.spread ?? 0), token))) {
          throw new DelayedError();
        }
        this.working.set(jobId, (this.working.get(jobId) ?? 0) + 1);
        try {
          await work(jobId, this.stopping.signal);
        } finally {
          const left = (this.working.get(jobId) ?? 1) - 1;
          if (left > 0) this.working.set(jobId, left);
          else this.working.delete(jobId);
        }
        if (this.stopping.signal.aborted && token) {
          // Stopped cleanly in the middle: the share goes back to the queue for another worker.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
      },
      {
        connection: this.give(connect(this.options.redisUrl, this.options.log)),
        concurrency: this.options.concurrency,
        stalledInterval: this.options.stalledMs,
        lockDuration: Math.max(this.options.stalledMs, 5000),
        maxStalledCount: 1000,
      },
    );
    this.worker.on('failed', (job, err) =>
      this.options.log.warn({ queueJob: job?.id, reason: err.message }, 'queued job failed'),
    );
    this.worker.on('error', () => undefined); // the shared connection reports Redis being away
    const beat = (): void => void this.redis.zadd(WORKERS, Date.now(), this.id).catch(() => undefined);
    beat();
    this.heartbeat = setInterval(beat, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private sharesOf(job: JobRecord): number {
    return job.kind === 'crawl' || job.kind === 'batch_scrape' ? this.options.shares : 1;
  }

  /**
   * A share of a job this process already works goes back to the queue for a moment, a few times, while other
   * workers are alive: BullMQ hands a worker as many entries as its concurrency allows, and a crawl's shares
   * are meant to spread its pages (and their rendering) over processes and machines. With no other worker, or
   * after the last try, it is worked here.
   */
  private async spreadElsewhere(job: Job, jobId: string, tries: number, token: string): Promise<boolean> {
    if (!this.working.has(jobId) || tries >= SPREAD_TRIES) return false;
    if ((await this.workersAlive()) < 2) return false;
    await job.updateData({ ...(job.data as object), spread: tries + 1 });
    await job.moveToDelayed(Date.now() + SPREAD_DELAY_MS, token);
    return true;
  }

  /**
   * Queues the job's shares. Owners take turns at the workers: a job's priority is its place among its
   * owner's jobs not ended (counted at its admission, RedisJobPlaces), so a tenant's first job is worked
   * before another tenant's fifth, whichever was queued first (BullMQ takes the lowest number first).
   */
  async submit(job: JobRecord): Promise<void> {
    const shares = this.sharesOf(job);
    const place = await this.redis.zcard(jobsKey(job.owner, 'jobs'));
    const priority = Math.min(LAST_PRIORITY, Math.max(1, place));
    await this.queue.addBulk(
      Array.from({ length: shares }, (_, i) => ({
        name: job.kind,
        data: { jobId: job.id },
        opts: {
          jobId: `${job.id}-${i}`,
          priority,
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: { age: 86_400 },
        },
      })),
    );
  }

  crawlState(job: JobRecord, spec: CrawlSpec): SharedCrawlState {
    const budget = new RedisBudget(this.redis, job.id, spec.limit);
    const frontier = new RedisFrontier(this.redis, job.id, this.options.leaseMs, budget);
    return {
      frontier,
      budget,
      politeness: this.politeness,
      pace: new RedisPace(this.redis, job.id),
      // maxConcurrency is the crawl's, as on one machine: its shares split it (adding workers spreads the
      // rendering; a higher maxConcurrency fetches more at once).
      lanes: Math.max(1, Math.ceil(spec.concurrency / this.sharesOf(job))),
      release: () => frontier.close(),
    };
  }

  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const lock = `pw:lock:${key}`;
    const token = randomUUID();
    const until = Date.now() + LOCK_WAIT_MS;
    while ((await this.redis.set(lock, token, 'PX', LOCK_LEASE_MS, 'NX')) !== 'OK') {
      if (Date.now() > until) throw new ServiceBusyError(`${key} is busy in another process; try again`);
      await sleep(50);
    }
    try {
      return await work();
    } finally {
      // Only this holder's lease: one that ran out and was taken by another process stays theirs.
      await this.redis
        .eval(
          "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
          1,
          lock,
          token,
        )
        .catch(() => undefined);
    }
  }

  /** One field per share (its text and until when it holds): a share never overwrites another's hosts. */
  async setCrawlWarning(jobId: string, share: string, warning: string | null, ttlMs: number): Promise<void> {
    const key = `pw:job:${jobId}:warnings`;
    if (warning === null) {
      await this.redis.hdel(key, share);
      return;
    }
    const ms = Math.max(1, Math.round(ttlMs));
    const until = (await redisNow(this.redis)) + ms;
    await this.redis.multi().hset(key, share, JSON.stringify({ warning, until })).pexpire(key, ms).exec();
  }

  async crawlWarning(jobId: string): Promise<string | null> {
    const [fields, now] = await Promise.all([
      this.redis.hgetall(`pw:job:${jobId}:warnings`),
      redisNow(this.redis),
    ]);
    const texts = new Set<string>();
    for (const raw of Object.values(fields) as string[]) {
      const { warning, until } = JSON.parse(raw) as { warning: string; until: number };
      if (until > now) texts.add(warning);
    }
    return texts.size > 0 ? [...texts].join('. ') : null;
  }

  async workersAlive(): Promise<number> {
    const since = Date.now() - 3 * HEARTBEAT_MS;
    await this.redis.zremrangebyscore(WORKERS, '-inf', since);
    return this.redis.zcard(WORKERS);
  }

  async queueCounts(): Promise<{ active: number; waiting: number }> {
    const c = await this.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
    return { active: c.active ?? 0, waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) };
  }

  async workedJobs(): Promise<Set<string>> {
    const active = await this.queue.getJobs(['active']);
    return new Set(active.map((job) => (job.data as { jobId?: string } | null)?.jobId ?? ''));
  }

  /** Whether Redis answers (health). */
  async ping(): Promise<boolean> {
    // Commands wait for a reconnect on this connection: a health check must not.
    if (this.redis.status !== 'ready') return false;
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 1000).unref());
    try {
      return (await Promise.race([this.redis.ping(), timeout])) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.stopping.abort();
    this.politeness.close();
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.redis.zrem(WORKERS, this.id).catch(() => undefined);
    // With Redis gone, BullMQ's close would wait on it: give it a moment, then drop the connections.
    const giveUp = new Promise((resolve) => setTimeout(resolve, 3000).unref());
    await Promise.race([this.worker?.close().catch(() => undefined), giveUp]);
    await Promise.race([this.queue.close().catch(() => undefined), giveUp]);
    this.redis.disconnect();
    for (const connection of this.given) connection.disconnect();
  }

  private give(connection: Redis): Redis {
    this.given.push(connection);
    return connection;
  }
}
