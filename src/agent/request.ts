import type { WebhookTarget } from '../jobs/webhooks.js';

/** How long a run may think: the LLM turns it gets (each may call up to MAX_CALLS_PER_TURN tools). */
export type AgentEffort = 'low' | 'medium' | 'high';

/** `extract` answers structured `data` every turn; `chat` may answer a follow-up in `message` alone. */
export type AgentMode = 'extract' | 'chat';

/** LLM turns of a run by effort; the last one is offered only the final-answer tool. */
export const TURNS_BY_EFFORT: Record<AgentEffort, number> = { low: 6, medium: 12, high: 24 };

/** Tool calls of one LLM turn that are run; more are answered with an error asking for fewer. */
export const MAX_CALLS_PER_TURN = 5;

/** Characters of a page's Markdown the model reads from one scrape. */
export const PAGE_CHARS = 12_000;

/** Earlier turns of a thread carried into a follow-up's conversation, and the characters of each result. */
export const HISTORY_TURNS = 5;
export const HISTORY_RESULT_CHARS = 8_000;

/** Credits a run may spend when the caller sets no `maxCredits` (one credit per page read). */
export const DEFAULT_MAX_CREDITS = 2500;

/** An earlier turn of the thread, as a follow-up's conversation shows it. */
export interface AgentTurn {
  prompt: string;
  data: unknown;
  message: string | null;
}

/** What an agent run stores: everything it needs to run again after a crash, the server LLM's key excepted. */
export interface AgentRequest {
  /**
   * The caller of a run stored before jobs had owners: the job stores read it as that job's `owner` (a run's
   * owner is its job's). Not written any more.
   */
  owner?: string;
  prompt: string;
  /** Seed pages (normalized); with `strict`, the only pages it reads. */
  urls: string[];
  schema?: Record<string, unknown>;
  strict: boolean;
  maxCredits: number;
  /** As the caller gave it (null: the default, medium). */
  effort: AgentEffort | null;
  mode: AgentMode;
  threadId: string;
  /** 1-based position in the thread. */
  turn: number;
  /** The thread's earlier turns, newest last. */
  history: AgentTurn[];
  /** What the caller asked for that this server cannot do (told in the answer's message). */
  notes: string[];
  webhook: WebhookTarget | null;
}

/** How a run ended well: with its answer, or with what it had when its credits ran out. */
export type AgentOutcome = 'succeeded' | 'credit_limit_reached';

/** What a finished run stores as its job's result. */
export interface AgentResult {
  data: unknown;
  message: string | null;
  /** Top-level fields of `data` → the pages (URLs) their values were read on. */
  sources: Record<string, string[]>;
  outcome: AgentOutcome;
  creditsUsed: number;
  tokensUsed: number;
}
