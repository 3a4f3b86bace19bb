import { BadRequestError } from '../errors.js';
import type { AgentRun, Agents } from '../agent/agents.js';
import { DEFAULT_MAX_CREDITS } from '../agent/request.js';
import type { AgentStep, ToolStep } from '../agent/steps.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { FirecrawlDeps } from './deps.js';
import type { Origin } from './jobs.js';
import { webhookOf } from './options.js';
import { checkedSchema, refuse } from './page-options.js';
import type { FcAgentBody } from './schemas/agent.js';
import type { JsonSchema } from '../extract/schema.js';
import type { Caller } from '../tenants/tenant.js';

/** Runs a list answers per page. */
const LIST_PAGE = 20;
/** Characters of a tool's answer the trace shows. */
const TRACE_OUTPUT_CHARS = 500;

/** The agent service, or the 400 naming the setting that enables it. */
export function agentsOf(fc: FirecrawlDeps): Agents {
  if (!fc.agents) {
    throw new BadRequestError(
      'the agent needs the server LLM: set OPENAI_BASE_URL (and MODEL_NAME, OPENAI_API_KEY) on the server',
    );
  }
  return fc.agents;
}

/** What the caller asked for that this server cannot do, said in the run's message instead of refused. */
function notesOf(body: FcAgentBody, model: string): string[] {
  const notes: string[] = [];
  if (body.exchange !== undefined) {
    notes.push(
      'Alexandria providers (exchange) and their approvals are not available on this self-hosted server: the run used web search and pages only.',
    );
  }
  if (body.model !== undefined && body.model !== model)
    notes.push(`The run used this server's model (${model}), not ${body.model}.`);
  if (body.threatProtection !== undefined) notes.push('threatProtection is not available on this server.');
  if (body.auditMetadata !== undefined) notes.push('auditMetadata is not recorded on this server.');
  return notes;
}

/**
 * POST /v2/agent: checks the request and starts a run of the caller's tenant (a follow-up when `threadId` names
 * a thread the caller can read).
 */
export async function startAgent(fc: FirecrawlDeps, body: FcAgentBody, caller: Caller) {
  const agents = agentsOf(fc);
  if (body.schema !== undefined) checkedSchema(body.schema as JsonSchema, 'schema');
  const urls = body.urls?.map((url, i) => parseTargetUrl(url, `urls[${i}]`).href);
  if (body.strictConstrainToURLs && !urls?.length && body.threadId === undefined)
    refuse('strictConstrainToURLs', 'needs urls to constrain the run to');
  const run = await agents.start({
    caller,
    prompt: body.prompt,
    ...(urls ? { urls } : {}),
    ...(body.schema ? { schema: body.schema as Record<string, unknown> } : {}),
    ...(body.strictConstrainToURLs !== undefined ? { strict: body.strictConstrainToURLs } : {}),
    maxCredits: body.maxCredits ?? DEFAULT_MAX_CREDITS,
    ...(body.effort ? { effort: body.effort as 'low' | 'medium' | 'high' } : {}),
    ...(body.mode ? { mode: body.mode as 'extract' | 'chat' } : {}),
    ...(body.threadId !== undefined ? { threadId: body.threadId } : {}),
    notes: notesOf(body, fc.serverLlm?.model ?? ''),
    webhook: webhookOf(body.webhook),
  });
  return {
    success: true as const,
    id: run.job.id,
    status: 'processing',
    threadId: run.request.threadId,
    threadTurn: run.request.turn,
  };
}

const statusOf = (run: AgentRun): 'processing' | 'completed' | 'failed' =>
  run.job.state === 'scraping' ? 'processing' : run.job.state === 'completed' ? 'completed' : 'failed';

const errorOf = (run: AgentRun): string | undefined =>
  run.job.state === 'cancelled'
    ? 'Cancelled'
    : run.job.state === 'failed'
      ? (run.job.error ?? 'Failed')
      : undefined;

const creditsOf = (steps: AgentStep[]): number =>
  steps.reduce((n, s) => n + (s.type === 'tool' ? s.pages.length : 0), 0);

/** GET /v2/agent/{id}: the run's status; once completed its data, sources and message. */
export async function agentStatus(fc: FirecrawlDeps, id: string, caller: Caller) {
  const agents = agentsOf(fc);
  const run = await agents.get(id, caller);
  const { job, request, result } = run;
  const steps = result ? [] : await agents.steps(id);
  const error = errorOf(run);
  const message = result?.message ?? (request.notes.length > 0 ? request.notes.join('\n\n') : undefined);
  return {
    success: true as const,
    id: job.id,
    status: statusOf(run),
    ...(error ? { error } : {}),
    ...(result && request.mode === 'extract' ? { data: result.data } : {}),
    ...(result && request.mode === 'chat' && result.data !== null ? { data: result.data } : {}),
    ...(job.state === 'scraping'
      ? {
          progress: {
            steps: steps.filter((s) => s.type === 'llm').length,
            toolCalls: steps.filter((s) => s.type === 'tool').length,
          },
        }
      : {}),
    model: fc.serverLlm?.model ?? '',
    mode: request.mode,
    expiresAt: new Date(job.expiresAt).toISOString(),
    creditsUsed: result?.creditsUsed ?? creditsOf(steps),
    ...(result ? { sources: result.sources } : {}),
    threadId: request.threadId,
    threadTurn: request.turn,
    ...(message ? { message } : {}),
    ...(request.notes.length > 0 ? { exchange: { enabled: false, paidCalls: 0, creditsUsed: null } } : {}),
  };
}

/** DELETE /v2/agent/{id}: the run stops within a moment (no further LLM call or fetch). */
export async function cancelAgent(fc: FirecrawlDeps, id: string, caller: Caller) {
  await agentsOf(fc).cancel(id, caller);
  return { success: true as const };
}

/**
 * GET /v2/agent: runs newest first, LIST_PAGE at a time, the caller's tenant's (an operator's: every tenant's,
 * or `tenant`'s); `next` pages on with `before`.
 */
export async function listAgents(
  fc: FirecrawlDeps,
  query: { before?: number; tenant?: string },
  origin: Origin,
  caller: Caller,
) {
  const runs = await agentsOf(fc).list(LIST_PAGE, caller, query.before, query.tenant);
  const oldest = runs[runs.length - 1];
  return {
    success: true as const,
    agents: runs.map((run) => ({
      id: run.job.id,
      createdAt: new Date(run.job.createdAt).toISOString(),
      targetHint: run.request.urls[0] ?? run.request.prompt.slice(0, 120),
      origin: 'api',
      settings: { hidden: false, starred: false },
      status: statusOf(run),
      options: {
        ...(run.request.urls.length > 0 ? { urls: run.request.urls } : {}),
        prompt: run.request.prompt,
        ...(run.request.schema ? { schema: run.request.schema } : {}),
        model: fc.serverLlm?.model ?? '',
        ...(run.request.effort ? { effort: run.request.effort } : {}),
      },
    })),
    ...(runs.length === LIST_PAGE && oldest
      ? { next: nextPage(origin, oldest.job.createdAt, query.tenant) }
      : {}),
  };
}

/** The list's next page: runs created before `before`, of the same tenant filter. */
function nextPage(origin: Origin, before: number, tenant: string | undefined): string {
  const params = new URLSearchParams({ before: String(before), ...(tenant ? { tenant } : {}) });
  return `${origin.protocol}://${origin.host}/v2/agent?${params}`;
}

const runStatusOf = (run: AgentRun): string =>
  run.job.state === 'scraping'
    ? 'processing'
    : run.job.state === 'completed'
      ? run.result!.outcome
      : run.job.state;

/** GET /v2/agent/threads/{threadId}: the thread's runs, first turn first (`includeData`: each result's data). */
export async function agentThread(fc: FirecrawlDeps, threadId: string, includeData: boolean, caller: Caller) {
  const runs = await agentsOf(fc).thread(threadId, caller);
  return {
    success: true as const,
    thread: {
      id: threadId,
      createdAt: new Date(runs[0]!.job.createdAt).toISOString(),
      updatedAt: new Date(Math.max(...runs.map((r) => r.job.updatedAt))).toISOString(),
      status: runs.some((r) => r.job.state === 'scraping') ? 'running' : 'idle',
      runs: runs.map((run) => ({
        id: run.job.id,
        turn: run.request.turn,
        mode: run.request.mode,
        prompt: run.request.prompt,
        ...(run.request.urls.length > 0 ? { urls: run.request.urls } : {}),
        ...(run.request.schema ? { schema: run.request.schema } : {}),
        ...(run.request.effort ? { effort: run.request.effort } : {}),
        status: runStatusOf(run),
        createdAt: new Date(run.job.createdAt).toISOString(),
        finishedAt: run.job.state === 'scraping' ? null : new Date(run.job.updatedAt).toISOString(),
        creditsUsed: run.result?.creditsUsed ?? null,
        message: run.result?.message ?? (run.job.state === 'failed' ? run.job.error : null),
        ...(includeData && run.result ? { data: run.result.data } : {}),
      })),
    },
  };
}

/**
 * GET /v2/agent/{id}/trace: the run's events (schemaVersion 1) built from its recorded steps. With `liveView`,
 * `activeBrowserSessions` is empty: the browser tool opens a session per call and ends it with the call, so none
 * stays open to watch.
 */
export async function agentTrace(fc: FirecrawlDeps, id: string, caller: Caller, liveView = false) {
  const agents = agentsOf(fc);
  const run = await agents.get(id, caller);
  const steps = await agents.steps(id);
  const agent = { id: `${id}:orchestrator`, role: 'orchestrator', name: 'research agent' };
  const events: Record<string, unknown>[] = [];
  const push = (at: number, type: string, fields: Record<string, unknown> = {}): void => {
    events.push({
      schemaVersion: 1,
      eventId: `${id}:${events.length}`,
      runId: id,
      occurredAt: new Date(at).toISOString(),
      producerSequence: events.length,
      agent,
      type,
      ...fields,
    });
  };
  push(run.job.createdAt, 'run.started');
  push(run.job.createdAt, 'agent.started');
  for (const step of steps) {
    if (step.type === 'llm') {
      if (step.content)
        push(step.at, 'reasoning.summary', { text: step.content.slice(0, TRACE_OUTPUT_CHARS) });
      continue;
    }
    toolEvents(step, push);
  }
  const end = run.job.updatedAt;
  if (run.job.state === 'cancelled') {
    push(end, 'run.cancel_requested', { reason: 'user' });
    const error = { code: 'cancelled', source: 'system', retryable: false, message: 'Cancelled' };
    push(end, 'agent.finished', { outcome: 'cancelled', durationMs: end - run.job.createdAt, error });
    push(end, 'run.finished', { outcome: 'cancelled', error });
  } else if (run.job.state === 'failed') {
    const error = { code: 'internal', source: 'agent', retryable: false, message: run.job.error ?? 'Failed' };
    push(end, 'agent.finished', { outcome: 'failed', durationMs: end - run.job.createdAt, error });
    push(end, 'run.finished', { outcome: 'failed', error });
  } else if (run.job.state === 'completed') {
    push(end, 'agent.finished', { outcome: 'succeeded', durationMs: end - run.job.createdAt, error: null });
    push(end, 'run.finished', { outcome: run.result!.outcome, error: null });
  }
  return {
    success: true as const,
    id,
    events,
    creditsUsed: run.result?.creditsUsed ?? creditsOf(steps),
    ...(liveView ? { activeBrowserSessions: [] } : {}),
  };
}

/** A tool call as trace events: started (arguments), its browser session, finished (outcome, duration). */
function toolEvents(
  step: ToolStep,
  push: (at: number, type: string, fields?: Record<string, unknown>) => void,
): void {
  push(step.startedAt, 'tool_call.started', {
    toolCallId: step.callId,
    toolName: step.name,
    parameters: step.args,
  });
  if (step.sessionId) {
    push(step.startedAt, 'browser.session.started', { sessionId: step.sessionId });
    push(step.finishedAt, 'browser.session.finished', {
      sessionId: step.sessionId,
      durationMs: step.finishedAt - step.startedAt,
    });
  }
  push(step.finishedAt, 'tool_call.finished', {
    toolCallId: step.callId,
    toolName: step.name,
    result: {
      outcome: step.outcome,
      durationMs: step.finishedAt - step.startedAt,
      pages: step.pages,
      output: step.output.slice(0, TRACE_OUTPUT_CHARS),
    },
  });
}
