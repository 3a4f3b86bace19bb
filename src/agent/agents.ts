import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import { randomUUID } from 'node:crypto';
import { NotFoundError, ThreadBusyError } from '../errors.js';
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

/** A run as its job stores it: the request, and once ended, the result or the reason. */
export interface AgentRun {
  job: JobRecord;
  request: AgentRequest;
  result: AgentResult | null;
}

/** What a caller starts a run with; omitted fields of a follow-up come from the thread's last turn. */
export interface AgentStart {
  /** Who starts it (`req.caller`): the run is its tenant's, a follow-up only on a thread it can read. */
  caller: Caller;
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
  /** Starts are run one at a time per owner, so that a follow-up sees whether the run before it has ended. */
  private readonly starting = new SerialByKey('agent start', MAX_QUEUED_STARTS);

  constructor(private readonly jobs: JobManager) {}

  /**
   * Stores a run of the caller's tenant and starts it. The job engine admits it like every job: a 429 when the
   * tenant already has MAX_AGENT_RUNS_PER_TENANT runs, or MAX_JOBS_PER_TENANT jobs, not ended (the agent runs'
   * limit named first when both are reached), counted when asked, across restarts and the fleet.
   */
  start(input: AgentStart): Promise<AgentRun> {
    // A follow-up reads its thread, then starts the next turn: in a fleet, one process at a time per thread.
    const start = (): Promise<AgentRun> =>
      input.threadId === undefined
        ? this.startNow(input)
        : this.jobs.exclusive(`agent-thread:${input.threadId}`, () => this.startNow(input));
    return this.starting.run(input.caller.tenant, start);
  }

  private async startNow(input: AgentStart): Promise<AgentRun> {
    let threadId = input.threadId ?? randomUUID();
    let turn = 1;
    let history: AgentTurn[] = [];
    let inherited: Partial<AgentRequest> = {};
    if (input.threadId !== undefined) {
      const runs = await this.thread(input.threadId, input.caller);
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
    const job = await this.jobs.startTask('agent', request, input.caller.tenant);
    return runOf(job);
  }

  /** A run the caller may read (its tenant's; any for an operator), else NotFoundError. */
  async get(id: string, caller: Caller): Promise<AgentRun> {
    const job = await this.jobs.get(id, caller);
    if (job.kind !== 'agent') throw new NotFoundError('Agent job not found');
    return runOf(job);
  }

  /** The steps of a run the caller read with `get` first. */
  steps(id: string): Promise<AgentStep[]> {
    return StepLog.read(this.jobs, id);
  }

  async cancel(id: string, caller: Caller): Promise<void> {
    await this.get(id, caller);
    await this.jobs.cancel(id, caller);
  }

  /**
   * Runs newest first, created before `before` (ms) when given: the caller's tenant's; an operator's, those of
   * `tenant`, or every tenant's.
   */
  async list(limit: number, caller: Caller, before?: number, tenant?: string): Promise<AgentRun[]> {
    const owner = listedOwner(caller, tenant);
    return (
      await this.jobs.recent(limit, {
        kind: 'agent',
        ...(owner !== undefined ? { owner } : {}),
        ...(before !== undefined ? { before } : {}),
      })
    ).map(runOf);
  }

  /**
   * A thread's runs the caller may read, first turn first; NotFoundError when none is found (another tenant's
   * thread is not found either).
   */
  async thread(threadId: string, caller: Caller): Promise<AgentRun[]> {
    const owner = listedOwner(caller);
    const runs = (await this.jobs.recent(THREAD_SCAN, { kind: 'agent', ...(owner ? { owner } : {}) }))
      .map(runOf)
      .filter((r) => r.request.threadId === threadId)
      .sort((a, b) => a.request.turn - b.request.turn);
    if (runs.length === 0) throw new NotFoundError('Agent thread not found');
    return runs;
  }
}
