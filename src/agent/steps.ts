import { StoreUnavailableError } from '../errors.js';
import type { ToolCall } from '../extract/llm-wire.js';
import type { JobStore } from '../jobs/stores/job-store.js';

/** One LLM turn of a run: what the model said and which tools it asked for. */
export interface LlmStep {
  type: 'llm';
  at: number;
  content: string | null;
  toolCalls: ToolCall[];
  tokens: number;
  /** What the run told the model before this turn (a budget reached, an answer refused). */
  nudge?: string;
}

/** One tool call of a run, with what the model was told (a replay gives the model the same text). */
export interface ToolStep {
  type: 'tool';
  callId: string;
  name: string;
  args: unknown;
  startedAt: number;
  finishedAt: number;
  outcome: 'ok' | 'error';
  /** The text the model read as the tool's answer. */
  output: string;
  /** The pages read, whose text is in `output`: one credit each, and the candidates of `sources`. */
  pages: string[];
  /** Tokens the tool's own LLM call cost (`extract`). */
  tokens?: number;
  /** A browser session the call opened, for the trace. */
  sessionId?: string;
}

export type AgentStep = LlmStep | ToolStep;

/** Steps read per store call when a run is replayed. */
const PAGE = 200;

/**
 * A run's steps, kept as its job's documents (`step:000001`, ...) so that every job-store adapter keeps them
 * durably and in order: a resumed run reads them back and goes on from the last one, reading no page again.
 */
export class StepLog {
  private count = 0;

  constructor(
    private readonly store: JobStore,
    private readonly jobId: string,
  ) {}

  static async read(store: Pick<JobStore, 'documents'>, jobId: string): Promise<AgentStep[]> {
    const steps: AgentStep[] = [];
    for (let skip = 0; ;) {
      const page = await store.documents(jobId, skip, PAGE, Number.POSITIVE_INFINITY);
      for (const body of page.documents) steps.push(JSON.parse(body) as AgentStep);
      if (!page.more) return steps;
      skip = page.nextSkip;
    }
  }

  /** Steps already recorded (a resumed run counts on from them). */
  async load(): Promise<AgentStep[]> {
    const steps = await StepLog.read(this.store, this.jobId);
    this.count = steps.length;
    return steps;
  }

  /**
   * Records the next step; a step already recorded at that position means another process runs this job too
   * (a lease that ran out): this run stops rather than let two logs diverge.
   */
  async append(step: AgentStep): Promise<void> {
    this.count++;
    const key = `step:${String(this.count).padStart(6, '0')}`;
    if (!(await this.store.addDocument(this.jobId, key, JSON.stringify(step)))) {
      throw new StoreUnavailableError(
        `Agent run ${this.jobId}: step ${this.count} was recorded by another process`,
      );
    }
  }
}
