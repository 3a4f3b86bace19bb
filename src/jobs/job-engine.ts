import type { Metrics } from '../lib/metrics.js';
import { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import { toAppError } from '../errors.js';
import type { StoreUnavailableError } from '../errors.js';
import type { JobKind, JobStore } from './stores/job-store.js';
import { RedisJobStore } from './stores/redis-job-store.js';
import { RedisJobPlaces } from './stores/redis-job-places.js';
import type { JobPlaces } from '../tenants/job-places.js';
import { MemoryPageStore } from './stores/page-store.js';
import type { PageStore } from './stores/page-store.js';
import { RedisPageStore } from './stores/redis-page-store.js';
import { Profiles, UnavailableProfileStore } from './stores/browser-state/profile-store.js';
import type { ProfileStore } from './stores/browser-state/profile-store.js';
import { RedisProfileStore } from './stores/browser-state/redis-profile-store.js';
import { SqliteProfileStore } from './stores/browser-state/sqlite-profile-store.js';
import { MemorySessionStore } from './stores/browser-state/session-store.js';
import type { SessionStore } from './stores/browser-state/session-store.js';
import { RedisSessionStore } from './stores/browser-state/redis-session-store.js';
import { SqliteSessionStore } from './stores/browser-state/sqlite-session-store.js';
import { MemoryScrapeOriginStore } from './stores/browser-state/scrape-origin-store.js';
import type { ScrapeOriginStore } from './stores/browser-state/scrape-origin-store.js';
import { RedisScrapeOriginStore } from './stores/browser-state/redis-scrape-origin-store.js';
import { SqliteScrapeOriginStore } from './stores/browser-state/sqlite-scrape-origin-store.js';
import type { MonitorStore } from './stores/monitor-state/monitor-store.js';
import { RedisMonitorStore } from './stores/monitor-state/redis-monitor-store.js';
import { SqliteMonitorStore } from './stores/monitor-state/sqlite-monitor-store.js';
import { UnavailableMonitorStore } from './stores/monitor-state/unavailable-monitor-store.js';
import { SqlitePageStore } from './stores/sqlite-page-store.js';
import { SqliteFrontier } from './stores/sqlite-frontier.js';
import { SqliteJobStore } from './stores/sqlite-job-store.js';
import { SqliteDb } from './stores/sqlite.js';
import { MemoryUsageStore, USAGE_KEEP_DAYS, addDays, utcDay } from './stores/usage-state/usage-store.js';
import type { UsageStore } from './stores/usage-state/usage-store.js';
import { RedisUsageStore } from './stores/usage-state/redis-usage-store.js';
import { SqliteUsageStore } from './stores/usage-state/sqlite-usage-store.js';
import type { Logger } from '../lib/logger.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { ProxyRoute } from '../lib/proxy-route.js';
import type { CrawlDeps } from './crawl-run.js';
import { BullFleet } from './fleet.js';
import { JobManager } from './job-manager.js';
import type { DocumentShaper, JobUsage, TaskRunner, WebhookEvents } from './job-manager.js';
import type { Frontier } from '../crawl/frontier.js';
import { WebhookSender } from './webhooks.js';

/**
 * Where jobs live: one SQLite file under DATA_DIR (this process works every job) by default, or Redis + BullMQ
 * with REDIS_URL (jobs, frontiers and documents in Redis, worked by every process of the fleet). The page store
 * (the last scrape of each page) is opened with them, so a surface can read it before the manager exists.
 */
export interface JobStores {
  /** Null when the store cannot be opened (job routes then answer 503 with `storeError`). */
  store: JobStore | null;
  storeError: string | null;
  pages: PageStore;
  /** Named browser states (`profile`), sealed with PROFILE_SECRET, expiring PROFILE_TTL_DAYS after a save. */
  profiles: Profiles;
  /** Browser sessions' records, so that every process of a fleet lists them and names their holder. */
  sessions: SessionStore;
  /** What reopens a scrape's page for `interact`, by scrape id, for a while after the scrape. */
  scrapeOrigins: ScrapeOriginStore;
  /** Monitors, their checks, pages and retained versions (never in memory: without the file, every call is 503). */
  monitors: MonitorStore;
  /** Each tenant's usage per UTC day (src/tenants/usage.ts writes it); in memory without the file. */
  usageStore: UsageStore;
  fleet: BullFleet | null;
  /** Where each tenant's jobs not ended are counted for the fleet; null: in `store`, by its one process. */
  places: JobPlaces | null;
  frontierFor: (jobId: string) => Frontier;
  onStoreFailure: (listener: (error: StoreUnavailableError) => void) => void;
  /** Null when the engine can serve, else the reason. */
  health: () => Promise<string | null>;
}

const DAY_MS = 86_400_000;

export function openJobStores(config: Config, log: Logger): JobStores {
  const profilesOn = (store: ProfileStore): Profiles =>
    new Profiles(store, { ttlMs: config.profileTtlDays * DAY_MS, secret: config.profileSecret });
  if (config.redis) {
    const { url } = config.redis;
    // Store commands fail at once while Redis is down (the job routes answer 503) instead of queueing.
    const storeConnection = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    storeConnection.on('error', () => undefined); // the fleet's connection reports Redis being away
    const fleet = new BullFleet({
      redisUrl: url,
      concurrency: config.redis.workers,
      shares: config.redis.shares,
      stalledMs: config.redis.stalledMs,
      leaseMs: config.redis.leaseMs,
      hostConcurrency: config.crawlHostConcurrency,
      log,
    });
    return {
      store: new RedisJobStore(storeConnection, config.jobTtlMs),
      storeError: null,
      pages: new RedisPageStore(storeConnection, config.cacheTtlMs),
      profiles: profilesOn(new RedisProfileStore(storeConnection)),
      sessions: new RedisSessionStore(storeConnection),
      scrapeOrigins: new RedisScrapeOriginStore(storeConnection),
      monitors: new RedisMonitorStore(storeConnection),
      usageStore: new RedisUsageStore(storeConnection),
      fleet,
      places: new RedisJobPlaces(storeConnection),
      frontierFor: () => {
        throw new Error('a fleet job has no local frontier');
      },
      onStoreFailure: () => undefined,
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
  return {
    store: sql ? new SqliteJobStore(sql, config.jobTtlMs) : null,
    storeError,
    // Without the file, the cache and change tracking still work for this process's life.
    pages: sql ? new SqlitePageStore(sql) : new MemoryPageStore(),
    profiles: profilesOn(sql ? new SqliteProfileStore(sql) : new UnavailableProfileStore(storeError ?? '')),
    // Without the file a session is still this process's own (it dies with it): its record in memory.
    sessions: sql ? new SqliteSessionStore(sql) : new MemorySessionStore(),
    scrapeOrigins: sql ? new SqliteScrapeOriginStore(sql) : new MemoryScrapeOriginStore(),
    monitors: sql ? new SqliteMonitorStore(sql) : new UnavailableMonitorStore(storeError ?? ''),
    usageStore: sql
      ? new SqliteUsageStore(sql, () => addDays(utcDay(Date.now()), -USAGE_KEEP_DAYS))
      : new MemoryUsageStore(),
    fleet: null,
    places: null,
    frontierFor: (jobId) => new SqliteFrontier(sql!, jobId),
    onStoreFailure: (listener) => void sql?.onFailure(listener),
    health: () => Promise.resolve(null),
  };
}

/** What the surfaces give the job engine: how their jobs' documents, webhooks and tasks look and run. */
export interface JobSurfacePorts {
  shapeDocument: DocumentShaper;
  webhookEvent: WebhookEvents;
  tasks: Partial<Record<JobKind, TaskRunner>>;
}

export interface JobEngineDeps extends JobSurfacePorts {
  crawl: CrawlDeps;
  guard: GuardOptions;
  /** PROXY_ALL's route for webhook deliveries; null: they go directly. */
  webhookProxy?: ProxyRoute | null;
  log: Logger;
  metrics: Metrics;
  /** The header that carries a webhook body's signature. */
  signatureHeader: string;
  /** Tenants' usage: checked before a job starts, purged and written with the stores. */
  usage?: JobUsage;
}

/** The job manager over opened stores; in a fleet, this process starts working the queue's shares. */
export function createJobManager(config: Config, stores: JobStores, deps: JobEngineDeps): JobManager {
  const { log } = deps;
  const jobs = new JobManager({
    ...stores,
    crawl: deps.crawl,
    webhooks: new WebhookSender({
      ...deps.guard,
      via: deps.webhookProxy ?? null,
      secret: config.webhookSecret,
      signatureHeader: deps.signatureHeader,
      log,
      metrics: deps.metrics,
    }),
    metrics: deps.metrics,
    shapeDocument: deps.shapeDocument,
    webhookEvent: deps.webhookEvent,
    tasks: deps.tasks,
    usage: deps.usage,
    log,
    ttlMs: config.jobTtlMs,
    maxRunning: config.maxRunningJobs,
    limits: (tenant) => config.tenants.limits(tenant),
    maxInterruptions: 3,
    purgeIntervalMs: config.jobPurgeIntervalMs,
    pagesTtlMs: config.cacheTtlMs,
  });
  stores.fleet?.startWorking((jobId, signal) => jobs.work(jobId, signal));
  return jobs;
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
