import type {
  CheckPage,
  CheckRecord,
  CheckStatus,
  MonitorRecord,
  MonitorStore,
  PageStatus,
  Snapshot,
} from './monitor-store.js';

/** Oldest first, then by id: the order every adapter lists monitors in. */
const byCreation = (a: MonitorRecord, b: MonitorRecord): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Newest first, then by id descending: the order every adapter lists a monitor's checks in. */
const byNewestCheck = (a: CheckRecord, b: CheckRecord): number =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * A process's own monitors (tests): records are copied in and out, so a caller changing an object it put or got
 * changes nothing stored, as with the durable adapters.
 */
export class MemoryMonitorStore implements MonitorStore {
  private readonly monitors = new Map<string, MonitorRecord>();
  private readonly checkRecords = new Map<string, CheckRecord>();
  private readonly checkPages = new Map<string, CheckPage[]>();
  /** Per monitor: key → snapshot. */
  private readonly snapshots = new Map<string, Map<string, Snapshot>>();

  get(id: string): Promise<MonitorRecord | null> {
    const monitor = this.monitors.get(id);
    return Promise.resolve(monitor ? structuredClone(monitor) : null);
  }

  put(monitor: MonitorRecord): Promise<void> {
    this.monitors.set(monitor.id, structuredClone(monitor));
    return Promise.resolve();
  }

  replaceIf(expected: MonitorRecord, next: MonitorRecord): Promise<boolean> {
    const stored = this.monitors.get(expected.id);
    if (!stored || JSON.stringify(stored) !== JSON.stringify(expected)) return Promise.resolve(false);
    this.monitors.set(next.id, structuredClone(next));
    return Promise.resolve(true);
  }

  list(
    owner: string | null,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }> {
    const all = [...this.monitors.values()]
      .filter((m) => owner === null || m.owner === owner)
      .sort(byCreation);
    const monitors = all.slice(offset, offset + limit).map((m) => structuredClone(m));
    return Promise.resolve({ monitors, total: all.length });
  }

  count(owner: string): Promise<number> {
    return Promise.resolve([...this.monitors.values()].filter((m) => m.owner === owner).length);
  }

  delete(id: string): Promise<boolean> {
    const existed = this.monitors.delete(id);
    for (const check of this.checksOf(id)) this.dropCheck(check.id);
    this.snapshots.delete(id);
    return Promise.resolve(existed);
  }

  due(now: number): Promise<MonitorRecord[]> {
    const due = [...this.monitors.values()]
      .filter((m) => m.status === 'active' && m.nextRunAt !== null && m.nextRunAt <= now)
      .sort((a, b) => a.nextRunAt! - b.nextRunAt! || (a.id < b.id ? -1 : 1));
    return Promise.resolve(due.map((m) => structuredClone(m)));
  }

  advance(id: string, from: number, to: number | null): Promise<boolean> {
    const monitor = this.monitors.get(id);
    if (!monitor || monitor.nextRunAt !== from) return Promise.resolve(false);
    monitor.nextRunAt = to;
    return Promise.resolve(true);
  }

  putCheck(check: CheckRecord): Promise<void> {
    this.checkRecords.set(check.id, structuredClone(check));
    return Promise.resolve();
  }

  check(monitorId: string, checkId: string): Promise<CheckRecord | null> {
    const check = this.checkRecords.get(checkId);
    return Promise.resolve(check && check.monitorId === monitorId ? structuredClone(check) : null);
  }

  checks(
    monitorId: string,
    offset: number,
    limit: number,
    status?: CheckStatus,
  ): Promise<{ checks: CheckRecord[]; total: number }> {
    const all = this.checksOf(monitorId)
      .filter((c) => status === undefined || c.status === status)
      .sort(byNewestCheck);
    const checks = all.slice(offset, offset + limit).map((c) => structuredClone(c));
    return Promise.resolve({ checks, total: all.length });
  }

  addPages(checkId: string, pages: CheckPage[]): Promise<void> {
    const held = this.checkPages.get(checkId) ?? [];
    held.push(...pages.map((p) => structuredClone(p)));
    this.checkPages.set(checkId, held);
    return Promise.resolve();
  }

  pages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: CheckPage[]; total: number }> {
    const all = (this.checkPages.get(checkId) ?? []).filter(
      (p) => status === undefined || p.status === status,
    );
    const pages = all.slice(skip, skip + limit).map((p) => structuredClone(p));
    return Promise.resolve({ pages, total: all.length });
  }

  snapshot(monitorId: string, key: string): Promise<Snapshot | null> {
    const snapshot = this.snapshots.get(monitorId)?.get(key);
    return Promise.resolve(snapshot ? { ...snapshot } : null);
  }

  putSnapshot(monitorId: string, key: string, snapshot: Snapshot): Promise<void> {
    const held = this.snapshots.get(monitorId) ?? new Map<string, Snapshot>();
    held.set(key, { ...snapshot });
    this.snapshots.set(monitorId, held);
    return Promise.resolve();
  }

  deleteSnapshot(monitorId: string, key: string): Promise<void> {
    this.snapshots.get(monitorId)?.delete(key);
    return Promise.resolve();
  }

  snapshotKeys(monitorId: string, prefix: string): Promise<string[]> {
    const keys = [...(this.snapshots.get(monitorId)?.keys() ?? [])].filter((k) => k.startsWith(prefix));
    return Promise.resolve(keys.sort());
  }

  purgeChecks(monitorId: string, before: number): Promise<number> {
    const old = this.checksOf(monitorId).filter((c) => c.createdAt < before);
    for (const check of old) this.dropCheck(check.id);
    return Promise.resolve(old.length);
  }

  private checksOf(monitorId: string): CheckRecord[] {
    return [...this.checkRecords.values()].filter((c) => c.monitorId === monitorId);
  }

  private dropCheck(checkId: string): void {
    this.checkRecords.delete(checkId);
    this.checkPages.delete(checkId);
  }
}
