import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { connect } from '../jobs/fleet.js';
import type { MonitorRecord, MonitorStore } from '../jobs/stores/monitor-state/monitor-store.js';
import type { Logger } from '../lib/logger.js';
import { reasonOf, storeNextRunAt } from './scheduler.js';
import type { FireTick, MonitorScheduler } from './scheduler.js';

const QUEUE = 'pw-monitor-ticks';
/** A failed tick's job is kept this long for inspection. */
const FAILED_TICK_AGE_S = 86_400;

export interface BullSchedulerOptions {
  redisUrl: string;
  /** Ticks this process fires at once (the fleet's worker role); 0: this process only schedules. */
  concurrency: number;
  store: MonitorStore;
  log: Logger;
}

/**
 * Monitors' schedules on Redis: one BullMQ job scheduler per active monitor (its id is the monitor's) on a
 * queue of its own, and a worker on that queue in every process that works jobs. BullMQ creates one job per
 * tick, with the tick's time in its id, and one worker takes it: a tick fires once across the fleet.
 *
 * Ticks missed while every process was down: the scheduler holds one job, the next tick's. A worker starting
 * after that tick takes that job at once (its time has passed) and, in the same step, schedules the following
 * one from the later of now and the tick (BullMQ's `upsertJobScheduler` from `Worker.nextJobFromJobData`), so
 * the missed ticks fire once in all, at start, not once each.
 *
 * A tick whose worker died while firing is taken again by another worker after BullMQ's stalled check (once):
 * `fire` should be idempotent for one `(monitorId, scheduledFor)`.
 */
export class BullScheduler implements MonitorScheduler {
  private readonly queue: Queue;
  /** Connections handed to BullMQ: it does not close a connection it was given, so close() does. */
  private readonly given: Redis[] = [];
  private worker: Worker | null = null;

  constructor(private readonly options: BullSchedulerOptions) {
    this.queue = new Queue(QUEUE, { connection: this.give(connect(options.redisUrl, options.log)) });
    this.queue.on('error', () => undefined); // the connection reports Redis being away
  }

  start(fire: FireTick): void {
    if (this.options.concurrency <= 0 || this.worker) return;
    const connection = this.give(connect(this.options.redisUrl, this.options.log));
    this.worker = new Worker(QUEUE, (job: Job) => this.tick(job, fire), {
      connection,
      concurrency: this.options.concurrency,
    });
    // With Redis away the connection reports it; anything else (a next tick that could not be scheduled) is said.
    this.worker.on('error', (err) => {
      if (connection.status === 'ready')
        this.options.log.warn({ reason: err.message }, 'monitor ticks: worker error');
    });
  }

  async sync(monitorId: string, monitor: MonitorRecord | null): Promise<void> {
    if (monitor === null || monitor.status === 'paused') {
      await this.queue.removeJobScheduler(monitorId);
    } else {
      const current = await this.queue.getJobScheduler(monitorId);
      // Upserting replaces the scheduler's pending job: an unchanged schedule keeps it (and a tick it missed).
      if (current?.pattern !== monitor.cron || current.tz !== monitor.timezone) {
        await this.queue.upsertJobScheduler(
          monitorId,
          { pattern: monitor.cron, tz: monitor.timezone },
          {
            name: 'tick',
            data: { monitorId },
            opts: { attempts: 1, removeOnComplete: true, removeOnFail: { age: FAILED_TICK_AGE_S } },
          },
        );
      }
    }
    if (monitor !== null) await storeNextRunAt(this.options.store, monitorId, Date.now());
  }

  /** One tick's job: fires it unless the monitor is paused or gone, after setting its next run for display. */
  private async tick(job: Job, fire: FireTick): Promise<void> {
    const { store, log } = this.options;
    const monitorId = (job.data as { monitorId?: unknown } | null)?.monitorId;
    if (typeof monitorId !== 'string' || monitorId === '') {
      throw new UnrecoverableError(`malformed monitor tick ${job.id}: no monitorId`);
    }
    // The tick's own time (job schedulers set it on each job), not when a worker got to it.
    const scheduledFor = job.opts.prevMillis ?? job.timestamp;
    let monitor: MonitorRecord | null | undefined;
    try {
      monitor = await store.get(monitorId);
    } catch (err) {
      log.warn({ monitorId, reason: reasonOf(err) }, 'monitor store unavailable; the tick fires unchecked');
    }
    if (monitor === null) {
      // Deleted while its scheduler stayed (its removal failed): nothing will fire it again.
      log.info({ monitorId }, 'monitor tick for a deleted monitor; its schedule is removed');
      await this.queue.removeJobScheduler(monitorId);
      return;
    }
    if (monitor?.status === 'paused') {
      log.debug({ monitorId, scheduledFor }, 'monitor tick skipped: the monitor is paused');
      return;
    }
    await storeNextRunAt(store, monitorId, Date.now()).catch((err: unknown) =>
      log.warn({ monitorId, reason: reasonOf(err) }, "could not store the monitor's next run"),
    );
    try {
      await fire(monitorId, scheduledFor);
    } catch (err) {
      log.error(
        { monitorId, scheduledFor, reason: reasonOf(err) },
        'scheduled monitor check failed to start',
      );
    }
  }

  async close(): Promise<void> {
    // With Redis gone, BullMQ's close would wait on it: give it a moment, then drop the connections.
    const giveUp = new Promise((resolve) => setTimeout(resolve, 3000).unref());
    await Promise.race([this.worker?.close().catch(() => undefined), giveUp]);
    await Promise.race([this.queue.close().catch(() => undefined), giveUp]);
    for (const connection of this.given) connection.disconnect();
  }

  private give(connection: Redis): Redis {
    this.given.push(connection);
    return connection;
  }
}
