import { StoreUnavailableError } from '../../../errors.js';
import type { MonitorStore } from './monitor-store.js';

/**
 * The monitors of a process whose job store could not be opened (DATA_DIR held by another process, or
 * unreadable): every call is the 503 naming why, as the job routes answer. Monitors kept in memory instead would
 * vanish at exit with their schedules, and a list would show none of the stored ones. The scheduler's periodic
 * calls (`due`, `purgeChecks`) find nothing to do instead of failing every tick.
 */
export class UnavailableMonitorStore implements MonitorStore {
  constructor(private readonly reason: string) {}

  private refuse(): Promise<never> {
    return Promise.reject(new StoreUnavailableError(`Monitor store unavailable: ${this.reason}`));
  }

  get: MonitorStore['get'] = () => this.refuse();
  put: MonitorStore['put'] = () => this.refuse();
  replaceIf: MonitorStore['replaceIf'] = () => this.refuse();
  list: MonitorStore['list'] = () => this.refuse();
  count: MonitorStore['count'] = () => this.refuse();
  delete: MonitorStore['delete'] = () => this.refuse();
  due: MonitorStore['due'] = () => Promise.resolve([]);
  advance: MonitorStore['advance'] = () => this.refuse();
  putCheck: MonitorStore['putCheck'] = () => this.refuse();
  check: MonitorStore['check'] = () => this.refuse();
  checks: MonitorStore['checks'] = () => this.refuse();
  addPages: MonitorStore['addPages'] = () => this.refuse();
  pages: MonitorStore['pages'] = () => this.refuse();
  snapshot: MonitorStore['snapshot'] = () => this.refuse();
  putSnapshot: MonitorStore['putSnapshot'] = () => this.refuse();
  deleteSnapshot: MonitorStore['deleteSnapshot'] = () => this.refuse();
  snapshotKeys: MonitorStore['snapshotKeys'] = () => this.refuse();
  purgeChecks: MonitorStore['purgeChecks'] = () => Promise.resolve(0);
}
