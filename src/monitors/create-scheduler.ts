import type { MonitorStore } from '../jobs/stores/monitor-state/monitor-store.js';
import type { Logger } from '../lib/logger.js';
import { BullScheduler } from './bull-scheduler.js';
import type { MonitorScheduler } from './scheduler.js';
import { StoreScheduler } from './store-scheduler.js';

export interface MonitorSchedulerDeps {
  /** REDIS_URL and this process's job concurrency (`config.redis`); null: the embedded store. */
  redis: { url: string; workers: number } | null;
  store: MonitorStore;
  log: Logger;
  /** The embedded store's loop period (ms). */
  tickMs?: number;
}

/** BullMQ job schedulers on Redis for a fleet; the embedded store's own loop otherwise. */
export function createMonitorScheduler(deps: MonitorSchedulerDeps): MonitorScheduler {
  const { redis, store, log } = deps;
  if (redis) return new BullScheduler({ redisUrl: redis.url, concurrency: redis.workers, store, log });
  return new StoreScheduler({ store, log, tickMs: deps.tickMs });
}
