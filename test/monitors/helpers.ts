import type { MonitorRecord, MonitorStore } from '../../src/jobs/stores/monitor-state/monitor-store.js';
import type { Logger } from '../../src/lib/logger.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it holds or `timeoutMs` passed; answers whether it held. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
}

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: object;
  message: string;
}

/** A logger that keeps its lines, for tests that read what was logged. */
export function recordingLog(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: object, message: string): void =>
      void lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** An active monitor on `cron` (UTC) with nothing run yet; `overrides` replace fields. */
export function monitorRecord(
  id: string,
  cron: string,
  overrides: Partial<MonitorRecord> = {},
): MonitorRecord {
  const now = Date.now();
  return {
    id,
    owner: 'default',
    name: id,
    status: 'active',
    config: {},
    cron,
    timezone: 'UTC',
    nextRunAt: null,
    lastRunAt: null,
    currentCheckId: null,
    lastCheckSummary: null,
    retentionDays: 30,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** A monitor store that answers like one across a network, and can go away. */
export type DistantMonitorStore = MonitorStore & { failing: boolean };

/**
 * `store` as across a network: each call answers after up to `latencyMs` (a random share), so that processes'
 * calls interleave, and rejects while `failing` is set, as a store that went away.
 */
export function distant(store: MonitorStore, latencyMs = 0): DistantMonitorStore {
  let failing = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'failing') return failing;
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]): Promise<unknown> => {
        if (latencyMs > 0) await sleep(Math.random() * latencyMs);
        if (failing) throw new Error('store is away');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
    set(target, name, value) {
      if (name !== 'failing') return Reflect.set(target, name, value);
      failing = value === true;
      return true;
    },
  }) as DistantMonitorStore;
}
