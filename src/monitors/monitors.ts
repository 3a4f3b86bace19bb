import { canSee, limitText, ownerOf } from '../tenants/tenant.js';
import type { Caller, LimitsOf } from '../tenants/tenant.js';
import { createHash, randomUUID } from 'node:crypto';
import { LimitReachedError, NotFoundError } from '../errors.js';
import type { JobManager } from '../jobs/job-manager.js';
import { FINAL_STATES } from '../jobs/stores/job-store.js';
import { updateMonitor } from '../jobs/stores/monitor-state/monitor-store.js';
import type {
  CheckPage,
  CheckRecord,
  CheckStatus,
  MonitorRecord,
  MonitorStore,
  PageStatus,
} from '../jobs/stores/monitor-state/monitor-store.js';
import type { Logger } from '../lib/logger.js';
import { SerialByKey } from '../lib/serial-by-key.js';
import { emptySummary } from './check-run.js';
import type { MonitorConfig } from './monitor-config.js';
import { checkInterval } from './schedule.js';
import type { MonitorScheduler } from './scheduler.js';

/** What a monitor is created with (the surface checked and normalized it). */
export interface MonitorInput {
  name: string;
  status: 'active' | 'paused';
  cron: string;
  timezone: string;
  retentionDays: number;
  config: MonitorConfig;
}

/** What a check job stores: the check it runs (the job's id is the check's). */
export interface CheckJobRequest {
  monitorId: string;
  checkId: string;
}

/**
 * A scheduled check's id, from its monitor and tick: a tick fired twice (a worker dying as it fired, BullMQ's
 * stalled check handing the tick to another) finds its check there and starts nothing.
 */
function tickCheckId(monitorId: string, scheduledFor: number): string {
  const hex = createHash('sha256').update(`${monitorId}:${scheduledFor}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** How long a queued check may wait for its job to be created before it counts as never started. */
const JOB_START_GRACE_MS = 60_000;
/** Creations of one owner waiting for the one in progress; beyond it, a 503. */
const MAX_QUEUED_CREATES = 100;

/**
 * Monitors: records in the monitor store, ticks from the scheduler (BullMQ's job schedulers with Redis, the
 * store's own loop otherwise), and each check a durable job (kind monitor_check) that any worker runs. A tick
 * of a paused or deleted monitor fetches nothing; a tick while the previous check still runs is recorded as
 * skipped_overlap.
 */
export class Monitors {
  /** Creations run one at a time per owner, so that the count each one reads includes the one before it. */
  private readonly creating = new SerialByKey('monitor creation', MAX_QUEUED_CREATES);

  constructor(
    private readonly deps: {
      store: MonitorStore;
      jobs: Pick<JobManager, 'startTask' | 'getUnchecked'>;
      scheduler: MonitorScheduler;
      /** Each owner's limits: `monitors` it may hold, `minMonitorIntervalSeconds` between two ticks. */
      limits: LimitsOf;
      log: Logger;
    },
  ) {}

  /** The owner's shortest interval, for surfaces that check a schedule with their own field names first. */
  minIntervalSeconds(owner: string): number {
    return this.deps.limits(owner).minMonitorIntervalSeconds;
  }

  /** Starts firing ticks (every process: the scheduler makes each tick fire once across the fleet). */
  start(): void {
    this.deps.scheduler.start((id, scheduledFor) => this.fire(id, scheduledFor));
  }

  /**
   * A monitor of `owner` (the caller, `req.tenant`). Its schedule's ticks must be MIN_MONITOR_INTERVAL_SECONDS
   * apart (400), and the owner may hold MAX_MONITORS_PER_TENANT at most (429), counted in the store when asked:
   * simultaneous creations of one owner wait for each other in this process.
   */
  async create(input: MonitorInput, owner: string): Promise<MonitorRecord> {
    checkInterval(input, this.minIntervalSeconds(owner), 'schedule');
    return this.creating.run(owner, async () => {
      const held = await this.deps.store.count(owner);
      const limits = this.deps.limits(owner);
      const max = limits.monitors;
      if (held >= max) {
        throw new LimitReachedError(
          `Tenant ${owner} holds ${held} monitors, the most it may (${limitText('monitors', limits)}): delete one to create another`,
        );
      }
      return this.createNow(input, owner);
    });
  }

  private async createNow(input: MonitorInput, owner: string): Promise<MonitorRecord> {
    const now = Date.now();
    const record: MonitorRecord = {
      id: randomUUID(),
      owner,
      name: input.name,
      status: input.status,
      config: input.config as unknown as Record<string, unknown>,
      cron: input.cron,
      timezone: input.timezone,
      nextRunAt: null,
      lastRunAt: null,
      currentCheckId: null,
      lastCheckSummary: null,
      retentionDays: input.retentionDays,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.put(record);
    await this.deps.scheduler.sync(record.id, record);
    return (await this.deps.store.get(record.id)) ?? record;
  }

  /** A monitor `caller` may reach: its tenant's (an operator's: any); another tenant's is as unknown (404). */
  async get(id: string, caller: Caller): Promise<MonitorRecord> {
    const monitor = await this.deps.store.get(id);
    if (!monitor || !canSee(caller, ownerOf(monitor))) throw new NotFoundError('Monitor not found');
    return monitor;
  }

  /** `owner`'s monitors (every tenant's with null), oldest first, with their total. */
  list(
    owner: string | null,
    offset: number,
    limit: number,
  ): Promise<{ monitors: MonitorRecord[]; total: number }> {
    return this.deps.store.list(owner, offset, limit);
  }

  /** Applies a change (the surface merged it into the record); the schedule follows it. */
  async update(
    id: string,
    caller: Caller,
    change: (monitor: MonitorRecord) => MonitorRecord,
  ): Promise<MonitorRecord> {
    const monitor = await this.get(id, caller);
    const asked = change(monitor);
    // Only the fields the change sets are written, onto the record as stored then: a check finishing meanwhile
    // keeps its own (its summary, its run), and this change keeps its.
    const fields = Object.fromEntries(
      Object.entries(asked).filter(
        ([key, value]) => JSON.stringify(value) !== JSON.stringify(monitor[key as keyof MonitorRecord]),
      ),
    ) as Partial<MonitorRecord>;
    checkInterval({ ...monitor, ...fields }, this.minIntervalSeconds(ownerOf(monitor)), 'schedule');
    const next = await updateMonitor(this.deps.store, id, () => ({ ...fields, updatedAt: Date.now() }));
    if (!next) throw new NotFoundError(`Monitor ${id} not found`);
    await this.deps.scheduler.sync(id, next);
    return (await this.deps.store.get(id)) ?? next;
  }

  async delete(id: string, caller: Caller): Promise<void> {
    await this.get(id, caller);
    if (!(await this.deps.store.delete(id))) throw new NotFoundError('Monitor not found');
    await this.deps.scheduler.sync(id, null);
  }

  /** POST /run: a check now, whatever the schedule (a paused monitor too: the caller asked for it). */
  async run(id: string, caller: Caller): Promise<CheckRecord> {
    const check = await this.startCheck(await this.get(id, caller), 'manual', null);
    if (!check) throw new NotFoundError('Monitor not found');
    return check;
  }

  /** A tick of the schedule: a check, unless the monitor is gone or paused (nothing is fetched then). */
  private async fire(id: string, scheduledFor: number): Promise<void> {
    const monitor = await this.deps.store.get(id);
    if (!monitor || monitor.status !== 'active') return;
    await this.startCheck(monitor, 'scheduled', scheduledFor);
  }

  /** The check started (or skipped as an overlap), or null when the monitor was deleted meanwhile. */
  private async startCheck(
    monitor: MonitorRecord,
    trigger: CheckRecord['trigger'],
    scheduledFor: number | null,
  ): Promise<CheckRecord | null> {
    const id = scheduledFor === null ? randomUUID() : tickCheckId(monitor.id, scheduledFor);
    const fired = scheduledFor === null ? null : await this.deps.store.check(monitor.id, id);
    if (fired) return fired;
    const now = Date.now();
    const running = await this.runningCheck(monitor, now);
    const check: CheckRecord = {
      id,
      monitorId: monitor.id,
      status: running ? 'skipped_overlap' : 'queued',
      trigger,
      scheduledFor,
      startedAt: null,
      finishedAt: running ? now : null,
      summary: emptySummary(),
      targetResults: [],
      notificationStatus: null,
      error: running ? `check ${running.id} was still running` : null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.putCheck(check);
    const latest = await this.deps.store.get(monitor.id);
    if (!latest) {
      // Deleted since it was read: the check just written goes with it (delete sweeps a missing monitor's rest).
      await this.deps.store.delete(monitor.id);
      return null;
    }
    if (running) {
      this.deps.log.info(
        { monitorId: monitor.id, running: running.id },
        'monitor tick skipped: a check is running',
      );
      return check;
    }
    await updateMonitor(this.deps.store, monitor.id, () => ({ currentCheckId: check.id }));
    const request: CheckJobRequest = { monitorId: monitor.id, checkId: check.id };
    // The check is the monitor's owner's work: its job is theirs to read, and runs for them.
    await this.deps.jobs.startTask('monitor_check', request, ownerOf(monitor), check.id);
    return check;
  }

  /**
   * The monitor's current check if it is still under way. One whose job ended without ending it (the job
   * failed, or was given up after repeated interruptions), or whose job was never created, is recorded as
   * failed: otherwise every later tick would be skipped as an overlap.
   */
  private async runningCheck(monitor: MonitorRecord, now: number): Promise<CheckRecord | null> {
    if (!monitor.currentCheckId) return null;
    const check = await this.deps.store.check(monitor.id, monitor.currentCheckId);
    if (!check || (check.status !== 'queued' && check.status !== 'running')) return null;
    const job = await this.deps.jobs.getUnchecked(check.id).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    // A check is written just before its job: a young one without a job is being started.
    if (job ? !FINAL_STATES.has(job.state) : now - check.createdAt < JOB_START_GRACE_MS) return check;
    const error = job?.error ?? (job ? `its job ended (${job.state})` : 'its job was never started');
    await this.deps.store.putCheck({ ...check, status: 'failed', finishedAt: now, updatedAt: now, error });
    this.deps.log.warn({ monitorId: monitor.id, checkId: check.id, reason: error }, 'monitor check failed');
    return null;
  }

  /** The checks of a monitor `caller` may reach (404 otherwise), newest first. */
  async checks(
    id: string,
    caller: Caller,
    offset: number,
    limit: number,
    status?: CheckStatus,
  ): Promise<{ checks: CheckRecord[]; total: number }> {
    await this.get(id, caller);
    return this.deps.store.checks(id, offset, limit, status);
  }

  /** One check of a monitor `caller` may reach; another tenant's monitor is 404 as an unknown one. */
  async check(id: string, checkId: string, caller: Caller): Promise<CheckRecord> {
    await this.get(id, caller);
    const check = await this.deps.store.check(id, checkId);
    if (!check) throw new NotFoundError('Check not found');
    return check;
  }

  /** The pages of a check the caller read with `check` first (the read that answers 404 across tenants). */
  pages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: CheckPage[]; total: number }> {
    return this.deps.store.pages(checkId, skip, limit, status);
  }

  close(): Promise<void> {
    return this.deps.scheduler.close();
  }
}
