import type { MonitorRecord, MonitorStore } from '../jobs/stores/monitor-state/monitor-store.js';
import { nextTick } from './schedule.js';

/** Fires one tick of a monitor: queues its scheduled check. */
export type FireTick = (monitorId: string, scheduledFor: number) => Promise<void>;

/**
 * What fires monitors' checks on their schedules, fleet-wide: each tick of an active monitor is fired once in
 * total, whatever the number of processes; a tick missed while every process was down fires once when one
 * starts, not once per missed tick; a paused or deleted monitor fires nothing.
 */
export interface MonitorScheduler {
  /**
   * Starts firing: `fire(monitorId, scheduledFor)` once per tick of each active monitor, fleet-wide
   * (`scheduledFor`: the tick's time, ms). `fire` should queue the check and return; its errors are logged.
   */
  start(fire: FireTick): void;
  /**
   * The monitor was created, changed, paused or resumed (its record, as stored: call after `store.put`), or
   * deleted (null). Sets the stored `nextRunAt` (the next tick; null while paused).
   */
  sync(monitorId: string, monitor: MonitorRecord | null): Promise<void>;
  /** Stops firing and closes what the scheduler opened; fires under way are awaited. */
  close(): Promise<void>;
}

/** What a log line says of a failure. */
export const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The `nextRunAt` a monitor's record should hold at `now`: its next tick, null while paused. */
export function nextRunFor(monitor: MonitorRecord, now: number): number | null {
  return monitor.status === 'active' ? nextTick(monitor.cron, monitor.timezone, now) : null;
}

/**
 * Sets the stored monitor's `nextRunAt` to its next tick after `now` (null while paused), from the stored
 * record. Written by compare-and-set where a tick is set, so that a tick another process advanced meanwhile is
 * read again rather than overwritten; a paused monitor being resumed (no tick set) is compared whole.
 */
export async function storeNextRunAt(store: MonitorStore, monitorId: string, now: number): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await store.get(monitorId);
    if (!stored) return;
    const next = nextRunFor(stored, now);
    if (stored.nextRunAt === next) return;
    if (stored.nextRunAt === null) {
      if (await store.replaceIf(stored, { ...stored, nextRunAt: next })) return;
      continue;
    }
    if (await store.advance(monitorId, stored.nextRunAt, next)) return;
  }
}
