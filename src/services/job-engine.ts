import type { Metrics } from '../lib/metrics.js';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { toAppError } from '../errors.js';
import type { JobKind, JobStore } from '../jobs/job-store.js';
import { RedisJobStore } from '../jobs/redis-job-store.js';
import { MemoryPageStore } from '../jobs/page-store.js';
import type { PageStore } from '../jobs/page-store.js';
import { RedisPageStore } from '../jobs/redis-page-store.js';
import { SqlitePageStore } from '../jobs/sqlite-page-store.js';
import { SqliteFrontier } from '../jobs/sqlite-frontier.js';
import { SqliteJobStore } from '../jobs/sqlite-job-store.js';
import { SqliteDb } from '../jobs/sqlite.js';
import type { Logger } from '../lib/logger.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { CrawlDeps } from './crawl-run.js';
import { BullFleet } from './fleet.js';
import { JobManager } from './jobs.js';
import type { DocumentShaper, TaskRunner } from './jobs.js';
import { WebhookSender } from './webhooks.js';

export interface JobEngineDeps {
  crawl: CrawlDeps;
  guard: GuardOptions;
  log: Logger;
  tasks: Partial<Record<JobKind, TaskRunner>>;
  /** A page as a job's stored document (Firecrawl's shape, with its LLM formats written). */
  shapeDocument: DocumentShaper;
  metrics: Metrics;
}

/**
 * The job engine: embedded (one SQLite file under DATA_DIR, this process works every job) by default, or
 * Redis + BullMQ with REDIS_URL (jobs, frontiers and documents in Redis, worked by every process of the fleet).
 * `health` answers null when the engine can serve, else the reason.
 */
export function createJobEngine(
  config: Config,
  deps: JobEngineDeps,
): { jobs: JobManager; pages: PageStore; health: () => Promise<string | null> } {
  const { log } = deps;
  const common = {
    crawl: deps.crawl,
    webhooks: new WebhookSender({ ...deps.guard, secret: config.webhookSecret, log, metrics: deps.metrics }),
    metrics: deps.metrics,
    shapeDocument: deps.shapeDocument,
    tasks: deps.tasks,
    log,
    ttlMs: config.jobTtlMs,
    maxRunning: config.maxRunningJobs,
    maxInterruptions: 3,
    purgeIntervalMs: config.jobPurgeIntervalMs,
    pagesTtlMs: config.cacheTtlMs,
  };
  if (config.redis) {
    const { url } = config.redis;
    // Store commands fail at once while Redis is down (the job routes answer 503) instead of queueing.
    const storeConnection = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    storeConnection.on('error', () => undefined); // the fleet's connection reports Redis being away
    const store: JobStore = new RedisJobStore(storeConnection, config.jobTtlMs);
    const pages = new RedisPageStore(storeConnection, config.cacheTtlMs);
    const fleet = new BullFleet({
      redisUrl: url,
      concurrency: config.redis.workers,
      shares: config.redis.shares,
      stalledMs: config.redis.stalledMs,
      leaseMs: config.redis.leaseMs,
      hostConcurrency: config.crawlHostConcurrency,
      log,
    });
    const jobs = new JobManager({
      ...common,
      store,
      pages,
      storeError: null,
      fleet,
      frontierFor: () => {
        throw new Error('a fleet job has no local frontier');
      },
      onStoreFailure: () => undefined,
    });
    fleet.startWorking((jobId, signal) => jobs.work(jobId, signal));
    return {
      jobs,
      pages,
      health: async () => ((await fleet.ping()) ? null : `Redis at ${safeUrl(url)} is unreachable`),
    };
  }
  let sql: SqliteDb | null = null;
  let storeError: string | null = null;
  try {
    sql = SqliteDb.open(config.dataDir);
  } catch (err) {
    storeError = toAppError(err).message;
    log.error(
      { dataDir: config.dataDir, reason: storeError },
      'job store unavailable; job routes answer 503',
    );
  }
  // Without the file, the cache and change tracking still work for this process's life.
  const pages: PageStore = sql ? new SqlitePageStore(sql) : new MemoryPageStore();
  const jobs = new JobManager({
    ...common,
    pages,
    store: sql ? new SqliteJobStore(sql, config.jobTtlMs) : null,
    storeError,
    fleet: null,
    frontierFor: (jobId) => new SqliteFrontier(sql!, jobId),
    onStoreFailure: (listener) => void sql?.onFailure(listener),
  });
  return { jobs, pages, health: () => Promise.resolve(null) };
}

/** The Redis URL without its password, for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return 'REDIS_URL';
  }
}
