import type { MonitorRecord, MonitorStore } from '../jobs/stores/monitor-state/monitor-store.js';
import type { Logger } from '../lib/logger.js';
import { nextTick } from './schedule.js';
import { reasonOf, storeNextRunAt } from './scheduler.js';
import type { FireTick, MonitorScheduler } from './scheduler.js';

export interface StoreSchedulerOptions {
  store: MonitorStore;
  log: Logger;
  /** How often the store is read for due monitors. */
  tickMs?: number;
}

/**
 * Monitors' schedules on the embedded store (the SQLite file, or memory): every `tickMs` the loop reads the
 * monitors due, and for each moves its `nextRunAt` from the tick due to the next tick after now with the
 * store's compare-and-set, firing the tick only when that succeeded. A tick is therefore fired once even with
 * two loops on one store, and the ticks missed while the process was down fire once at start (the stored
 * `nextRunAt` is in the past; the next one is computed from now).
 */
export class StoreScheduler implements MonitorScheduler {
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | null = null;
  private iteration: Promise<void> | null = null;
  private closed = false;
  private readonly firing = new Set<Promise<void>>();
  /**
   * The last tick this process fired, per monitor: a record written back with an older `nextRunAt` (an update
   * that read it before the loop advanced it) never fires the same tick a second time.
   */
  private readonly lastFired = new Map<string, number>();
  /** Whether the store's failure was logged (once until it answers again). */
  private storeFailing = false;

  constructor(private readonly options: StoreSchedulerOptions) {
    this.tickMs = options.tickMs ?? 250;
  }

  start(fire: FireTick): void {
    if (this.closed || this.timer || this.iteration) return;
    const loop = (): void => {
      this.timer = null;
      this.iteration = this.fireDue(fire).finally(() => {
        this.iteration = null;
        if (this.closed) return;
        this.timer = setTimeout(loop, this.tickMs);
        this.timer.unref();
      });
    };
    loop();
  }

  async sync(monitorId: string, monitor: MonitorRecord | null): Promise<void> {
    if (monitor === null) {
      this.lastFired.delete(monitorId);
      return;
    }
    await storeNextRunAt(this.options.store, monitorId, Date.now());
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.iteration;
    await Promise.all(this.firing);
  }

  /** One pass: every monitor due is advanced to its next tick, and fired where this pass advanced it. */
  private async fireDue(fire: FireTick): Promise<void> {
    const now = Date.now();
    const { store, log } = this.options;
    try {
      for (const monitor of await store.due(now)) {
        if (this.closed) return;
        const scheduledFor = monitor.nextRunAt;
        if (scheduledFor === null) continue;
        if (await store.advance(monitor.id, scheduledFor, this.nextAfter(monitor, now))) {
          this.fireOnce(fire, monitor.id, scheduledFor);
        }
      }
      if (this.storeFailing) log.info({}, 'monitor store answers again; schedules resume');
      this.storeFailing = false;
    } catch (err) {
      if (!this.storeFailing) {
        log.error({ reason: reasonOf(err) }, 'monitor store unavailable; scheduled checks wait for it');
      }
      this.storeFailing = true;
    }
  }

  /** The monitor's next tick after `now`; null (it stops, said in the log) when its cron cannot be read. */
  private nextAfter(monitor: MonitorRecord, now: number): number | null {
    try {
      return nextTick(monitor.cron, monitor.timezone, now);
    } catch (err) {
      this.options.log.error(
        { monitorId: monitor.id, cron: monitor.cron, timezone: monitor.timezone, reason: reasonOf(err) },
        'monitor schedule cannot be read; no further checks until it is updated',
      );
      return null;
    }
  }

  private fireOnce(fire: FireTick, monitorId: string, scheduledFor: number): void {
    const { log } = this.options;
    if ((this.lastFired.get(monitorId) ?? -Infinity) >= scheduledFor) {
      log.debug({ monitorId, scheduledFor }, 'monitor tick already fired here; skipped');
      return;
    }
    this.lastFired.set(monitorId, scheduledFor);
    const firing: Promise<void> = Promise.resolve()
      .then(() => fire(monitorId, scheduledFor))
      .catch((err: unknown) =>
        log.error(
          { monitorId, scheduledFor, reason: reasonOf(err) },
          'scheduled monitor check failed to start',
        ),
      )
      .finally(() => this.firing.delete(firing));
    this.firing.add(firing);
  }
}
