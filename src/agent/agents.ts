import { limitText } from '../tenants/tenant.js';
import type { LimitsOf } from '../tenants/tenant.js';
import { randomUUID } from 'node:crypto';
import { LimitReachedError, NotFoundError, ThreadBusyError } from '../errors.js';
import type { JobManager } from '../jobs/job-manager.js';
import type { JobRecord } from '../jobs/stores/job-store.js';
import { SerialByKey } from '../lib/serial-by-key.js';
import type { AgentRequest, AgentResult, AgentTurn } from './request.js';
import { HISTORY_TURNS } from './request.js';
import { StepLog } from './steps.js';
import type { AgentStep } from './steps.js';

/** Agent runs scanned (newest first) for a thread's turns: a thread older than these many runs is not found. */
const THREAD_SCAN = 500;
/** Starts of one owner waiting for the one in progress; beyond it, a 503. */
const MAX_QUEUED_STARTS = 100;
/** The owner of a run stored without one. */
const NO_OWNER = 'default';

/** A run as its job stores it: the request, and once ended, the result or the reason. */
export interface AgentRun {
  job: JobRecord;
  request: AgentRequest;
  result: AgentResult | null;
}

/** What a caller starts a run with; omitted fields of a follow-up come from the thread's last turn. */
export interface AgentStart {
  /** The caller (`req.tenant`). */
  owner: string;
  prompt: string;
  urls?: string[];
  schema?: Record<string, unknown>;
  strict?: boolean;
  maxCredits: number;
  effort?: AgentRequest['effort'];
  mode?: AgentRequest['mode'];
  threadId?: string;
  notes: string[];
  webhook: AgentRequest['webhook'];
}

const runOf = (job: JobRecord): AgentRun => ({
  job,
  request: job.request as AgentRequest,
  result: job.state === 'completed' ? (job.result as AgentResult) : null,
});

/**
 * The research agent's runs as durable jobs of kind `agent` (any job store; in a fleet, any worker runs them):
 * start, read (with the steps recorded so far), cancel, list, and a thread's turns.
 */
export class Agents {
  /** Starts are run one at a time per owner, so that the count each one reads includes the run before it. */
  private readonly starting = new SerialByKey('agent start', MAX_QUEUED_STARTS);

  constructor(
    private readonly jobs: JobManager,
    /** Each owner's limits: `agentRuns` not yet ended. */
    private readonly limits: LimitsOf,
  ) {}

  /**
   * Stores a run and starts it; a 429 when its owner already has MAX_AGENT_RUNS_PER_TENANT runs that have not
   * ended, counted in the job store (so across restarts) when asked: simultaneous starts of one owner wait for
   * each other in this process.
   */
  start(input: AgentStart): Promise<AgentRun> {
    return this.starting.run(input.owner, async () => {
      const running = (await this.jobs.active()).filter(
        (job) => job.kind === 'agent' && ((job.request as AgentRequest).owner ?? NO_OWNER) === input.owner,
      ).length;
      const limits = this.limits(input.owner);
      const max = limits.agentRuns;
      if (running >= max) {
        throw new LimitReachedError(
          `Tenant ${input.owner} has ${running} agent runs in progress, the most it may (${limitText('agentRuns', limits)}): start this one once one has ended`,
        );
      }
      return this.startNow(input);
    });
  }

  private async startNow(input: AgentStart): Promise<AgentRun> {
    let threadId = input.threadId ?? randomUUID();
    let turn = 1;
    let history: AgentTurn[] = [];
    let inherited: Partial<AgentRequest> = {};
    if (input.threadId !== undefined) {
      const runs = await this.thread(input.threadId);
      const last = runs[runs.length - 1]!;
      if (last.job.state === 'scraping')
        throw new ThreadBusyError(
          `Thread ${input.threadId} has a run in progress (${last.job.id}); wait for it to end`,
        );
      threadId = input.threadId;
      turn = last.request.turn + 1;
      inherited = last.request;
      history = runs
        .filter((r) => r.result !== null)
        .slice(-HISTORY_TURNS)
        .map((r) => ({ prompt: r.request.prompt, data: r.result!.data, message: r.result!.message }));
    }
    const schema = input.schema ?? inherited.schema;
    const request: AgentRequest = {
      owner: input.owner,
      prompt: input.prompt,
      urls: input.urls ?? inherited.urls ?? [],
      ...(schema ? { schema } : {}),
      strict: input.strict ?? inherited.strict ?? false,
      maxCredits: input.maxCredits,
      effort: input.effort ?? null,
      mode: input.mode ?? inherited.mode ?? 'extract',
      threadId,
      turn,
      history,
      notes: input.notes,
      webhook: input.webhook,
    };
    const job = await this.jobs.startTask('agent', request);
    return runOf(job);
  }

  async get(id: string): Promise<AgentRun> {
    const job = await this.jobs.get(id);
    if (job.kind !== 'agent') throw new NotFoundError('Agent job not found');
    return runOf(job);
  }

  steps(id: string): Promise<AgentStep[]> {
    return StepLog.read(this.jobs, id);
  }

  async cancel(id: string): Promise<void> {
    await this.get(id);
    await this.jobs.cancel(id);
  }

  /** Runs newest first, created before `before` (ms) when given. */
  async list(limit: number, before?: number): Promise<AgentRun[]> {
    return (
      await this.jobs.recent(limit, { kind: 'agent', ...(before !== undefined ? { before } : {}) })
    ).map(runOf);
  }

  /** A thread's runs, first turn first; NotFoundError when none is found. */
  async thread(threadId: string): Promise<AgentRun[]> {
    const runs = (await this.jobs.recent(THREAD_SCAN, { kind: 'agent' }))
      .map(runOf)
      .filter((r) => r.request.threadId === threadId)
      .sort((a, b) => a.request.turn - b.request.turn);
    if (runs.length === 0) throw new NotFoundError('Agent thread not found');
    return runs;
  }
}
