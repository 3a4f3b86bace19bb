import { LlmError } from '../errors.js';
import { parseJsonAnswer } from '../extract/llm.js';
import type { ChatMessage, ToolCall } from '../extract/llm-wire.js';
import { compileSchema, describeViolations } from '../extract/schema.js';
import type { JobRun } from '../jobs/job-manager.js';
import type { JobStore } from '../jobs/stores/job-store.js';
import { Deadline } from '../lib/deadline.js';
import { openingMessages } from './prompt.js';
import type { AgentRequest, AgentResult } from './request.js';
import { MAX_CALLS_PER_TURN, TURNS_BY_EFFORT } from './request.js';
import { sourcesOf } from './sources.js';
import { StepLog } from './steps.js';
import type { AgentStep, LlmStep, ToolStep } from './steps.js';
import { finalAnswerTool, toolboxFor } from './tools.js';
import type { AgentToolDeps, Toolbox } from './tools.js';

export interface AgentRunDeps extends AgentToolDeps {
  store: JobStore;
  /** MAX_AGENT_TOKENS: the tokens one run may spend, its tools' LLM calls included. */
  maxTokens: number;
}

/** Time one LLM turn may take. */
const TURN_TIMEOUT_MS = 120_000;
/** Past this share of the token budget, the model is only offered the final answer. */
const TOKEN_RESERVE = 0.8;

/** A final answer the model gave, checked against the request. */
type Final = { data: unknown; message: string | null; named: { field: string; urls: string[] }[] };

/** Checks a final answer: the schema's data in extract mode, a message in chat mode; a string says what is wrong. */
function checkFinal(request: AgentRequest, answer: Record<string, unknown>): Final | string {
  const message = typeof answer.message === 'string' && answer.message.trim() ? answer.message.trim() : null;
  const named = Array.isArray(answer.sources)
    ? (answer.sources as { field?: unknown; urls?: unknown }[]).flatMap((s) =>
        typeof s?.field === 'string' && Array.isArray(s.urls)
          ? [{ field: s.field, urls: s.urls.filter((u): u is string => typeof u === 'string') }]
          : [],
      )
    : [];
  const data = answer.data ?? null;
  if (request.mode === 'chat' && data === null) {
    return message ? { data: null, message, named } : 'a chat answer needs "message"';
  }
  if (request.schema) {
    const validate = compileSchema(request.schema);
    if (!validate(data))
      return `data does not follow the schema: ${describeViolations(validate.errors).join('; ')}`;
  } else if (data === null || typeof data !== 'object') {
    return '"data" must be a JSON object';
  }
  return { data, message, named };
}

/** The answer in the model's plain text (no tool call): JSON data in extract mode, the text itself in chat mode. */
function finalFromText(request: AgentRequest, content: string): Final | string {
  if (request.mode === 'chat') return { data: null, message: content.trim(), named: [] };
  let data: unknown;
  try {
    data = parseJsonAnswer(content);
  } catch {
    return 'the answer is not JSON: call final_answer with data';
  }
  return checkFinal(request, { data });
}

/**
 * One agent run: a tool-calling loop on the server's LLM whose every step is recorded before the next, so that
 * a run resumed after a crash replays its steps (no page is read again) and goes on from the last one. It ends
 * through `final_answer` or the model's plain answer, within its turns (effort), credits and tokens.
 */
export async function runAgent(request: AgentRequest, run: JobRun, deps: AgentRunDeps): Promise<AgentResult> {
  const { signal, jobId, caller } = run;
  const log = new StepLog(deps.store, jobId);
  const steps = await log.load();
  const toolbox = toolboxFor(request, caller, deps);
  const messages: ChatMessage[] = openingMessages(request, deps.executor !== null);
  for (const step of steps) replay(step, messages);
  const maxTurns = TURNS_BY_EFFORT[request.effort ?? 'medium'];
  const tally = () => ({
    turns: steps.filter((s) => s.type === 'llm').length,
    credits: steps.reduce((n, s) => n + (s.type === 'tool' ? s.pages.length : 0), 0),
    tokens: steps.reduce(
      (n, s) => n + (s.type === 'llm' ? s.tokens : s.type === 'tool' ? (s.tokens ?? 0) : 0),
      0,
    ),
  });
  const result = (final: Final): AgentResult => {
    const { credits, tokens } = tally();
    return {
      data: final.data,
      message: [final.message, ...request.notes].filter(Boolean).join('\n\n') || null,
      sources: sourcesOf(final.data, steps, final.named),
      outcome: credits >= request.maxCredits ? 'credit_limit_reached' : 'succeeded',
      creditsUsed: credits,
      tokensUsed: tokens,
    };
  };
  const record = async (step: AgentStep): Promise<void> => {
    await log.append(step);
    steps.push(step);
    replay(step, messages);
  };

  let nudge: string | null = null;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    // The calls of a turn are answered in order, so those after its step are its answered ones; matching by
    // call id would not do: models and servers that number calls per turn repeat ids across turns.
    const lastAt = steps.findLastIndex((s) => s.type === 'llm');
    const last = lastAt >= 0 ? (steps[lastAt] as LlmStep) : undefined;
    const answered = steps.slice(lastAt + 1) as ToolStep[];
    // A run that stopped after its final answer was recorded ends with it, without asking the model again.
    const accepted = answered.find((s) => s.name === 'final_answer' && s.outcome === 'ok');
    if (accepted) {
      const final = checkFinal(request, accepted.args as Record<string, unknown>);
      if (typeof final !== 'string') return result(final);
    }
    const pending = last?.toolCalls.slice(answered.length) ?? [];
    if (pending.length > 0) {
      for (const [i, call] of pending.entries()) {
        if (signal.aborted) throw signal.reason;
        const outcome = await callTool(call, answered.length + i, request, tally().credits, signal, {
          toolbox,
          log: deps.log,
        });
        await record(outcome.step);
        if (outcome.final) return result(outcome.final);
      }
      continue;
    }
    if (last && last.toolCalls.length === 0) {
      const final = last.content ? finalFromText(request, last.content) : 'call final_answer to end the run';
      if (typeof final !== 'string') return result(final);
      nudge = `Your last answer cannot end the run: ${final}.`;
    }
    const { turns, credits, tokens } = tally();
    if (tokens >= deps.maxTokens)
      throw new LlmError(
        `The run used its ${deps.maxTokens} tokens (MAX_AGENT_TOKENS) without a final answer`,
      );
    if (turns >= maxTurns)
      throw new LlmError(
        `The run used its ${maxTurns} steps (effort ${request.effort ?? 'medium'}) without a valid final answer${nudge ? `: ${nudge}` : ''}`,
      );
    const lastTurn =
      turns === maxTurns - 1 || credits >= request.maxCredits || tokens >= deps.maxTokens * TOKEN_RESERVE;
    if (lastTurn) {
      const why = credits >= request.maxCredits ? 'The credit limit is reached' : 'This is the last step';
      nudge = `${nudge ? `${nudge} ` : ''}${why}: call final_answer now with what you have.`;
    }
    const turnMessages: ChatMessage[] = nudge ? [...messages, { role: 'user', content: nudge }] : messages;
    const deadline = Deadline.after(TURN_TIMEOUT_MS, signal);
    try {
      const answer = await deps.llm.chat(
        deps.endpoint,
        turnMessages,
        lastTurn ? [finalAnswerTool(request)] : toolbox.offered,
        deadline,
        'agent',
      );
      await record({
        type: 'llm',
        at: Date.now(),
        content: answer.content,
        toolCalls: answer.toolCalls,
        tokens: answer.usage.prompt + answer.usage.completion,
        ...(nudge ? { nudge } : {}),
      });
      nudge = null;
    } finally {
      deadline.dispose();
    }
  }
}

/** Adds a recorded step to the conversation as the model saw it. */
function replay(step: AgentStep, messages: ChatMessage[]): void {
  if (step.type === 'llm') {
    if (step.nudge) messages.push({ role: 'user', content: step.nudge });
    messages.push({ role: 'assistant', content: step.content, toolCalls: step.toolCalls });
  } else {
    messages.push({ role: 'tool', toolCallId: step.callId, content: step.output });
  }
}

/** Runs one call of the model and the step that records it; a valid `final_answer` ends the run. */
async function callTool(
  call: ToolCall,
  index: number,
  request: AgentRequest,
  creditsUsed: number,
  signal: AbortSignal,
  deps: { toolbox: Toolbox; log: AgentRunDeps['log'] },
): Promise<{ step: ToolStep; final?: Final }> {
  const startedAt = Date.now();
  let args: Record<string, unknown> = {};
  const step = (outcome: 'ok' | 'error', output: string, extra: Partial<ToolStep> = {}): ToolStep => ({
    type: 'tool',
    callId: call.id,
    name: call.name,
    args,
    startedAt,
    finishedAt: Date.now(),
    outcome,
    output,
    pages: [],
    ...extra,
  });
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return { step: step('error', `The arguments of ${call.name} are not a JSON object.`) };
  }
  if (index >= MAX_CALLS_PER_TURN)
    return { step: step('error', `At most ${MAX_CALLS_PER_TURN} tool calls are run per step; ask again.`) };
  if (call.name === 'final_answer') {
    const final = checkFinal(request, args);
    if (typeof final === 'string')
      return { step: step('error', `Not accepted: ${final}. Call final_answer again.`) };
    return { step: step('ok', 'Accepted.'), final };
  }
  const outcome = await deps.toolbox.run(call.name, args, {
    mayRead: creditsUsed < request.maxCredits,
    signal,
  });
  if (!outcome.ok)
    deps.log.debug(
      { op: 'agent', tool: call.name, reason: outcome.output.slice(0, 300) },
      'agent tool call failed',
    );
  return {
    step: step(outcome.ok ? 'ok' : 'error', outcome.output, {
      pages: outcome.pages,
      tokens: outcome.tokens,
      ...(outcome.sessionId ? { sessionId: outcome.sessionId } : {}),
    }),
  };
}
