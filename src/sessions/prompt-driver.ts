import type { Page } from 'playwright-core';
import type { LlmPrompt } from '../extract/llm.js';
import type { Deadline } from '../lib/deadline.js';
import { runCommands } from './commands/run-commands.js';
import type { CommandsResult } from './commands/run-commands.js';

/** One call to the server's LLM: the prompt in, the model's text out, within the deadline. */
export type AskLlm = (prompt: LlmPrompt, deadline: Deadline) => Promise<string>;

export interface PromptLimits {
  /** Model calls at most (each one step: a run of commands, or done). */
  maxSteps: number;
  /** Characters of `snapshot -i` the model sees at each step. */
  maxSnapshotChars: number;
  /** Characters of the previous step's output the model sees. */
  maxOutputChars: number;
  /** Characters sent to the model over the whole run. */
  maxTotalChars: number;
}

export const PROMPT_LIMITS: PromptLimits = {
  maxSteps: 10,
  maxSnapshotChars: 12_000,
  maxOutputChars: 4000,
  maxTotalChars: 200_000,
};

/** What the model answered at one step, and what running it gave. */
export interface PromptStep {
  step: number;
  tool: 'run' | 'done' | 'invalid';
  /** The script the model ran (`run`). */
  commands?: string;
  /** The final answer (`done`). */
  answer?: string;
  /** The script's result (`run`), or why the answer was not understood (`invalid`). */
  result?: CommandsResult;
}

/** The run: its steps, the final answer when the model said done, and a shell-like result with a transcript. */
export interface PromptRun extends CommandsResult {
  steps: PromptStep[];
  answer: string | null;
}

const INSTRUCTIONS = [
  'You drive a web browser page to reach a goal, one step at a time, with agent-browser commands',
  '(one a line, && chains): open <url>, back, reload, snapshot -i, click <sel>, fill <sel> <text>,',
  'type <sel> <text>, press <key>, select <sel> <value>, check <sel>, scroll down, wait <sel|ms>,',
  'get text|value|html <sel>, get title, get url, is visible <sel>, eval <js>. <sel> is a ref from the',
  'snapshot (@e2) or a CSS selector; quote texts with spaces ("Ada Lovelace").',
  "Each step you get the goal, the page's current snapshot and the previous step's output. Answer with",
  'exactly one tool call as a JSON object: {"tool":"run","commands":"..."} to run commands, or',
  '{"tool":"done","answer":"..."} when the goal is met (the answer is what the goal asked to find out,',
  'or a short account of what was done), or when it cannot be met (say why).',
].join(' ');

/** The tool call's JSON Schema (structured output where the server supports it). */
const TOOL_SCHEMA = {
  type: 'object',
  properties: {
    tool: { type: 'string', enum: ['run', 'done'] },
    commands: { type: 'string' },
    answer: { type: 'string' },
  },
  required: ['tool'],
  additionalProperties: false,
};

const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}\n[... ${text.length - max} more characters cut]`;

/**
 * The model's tool call: `{tool, commands|answer}`, also as `{name, arguments}` (the function-call shape, its
 * arguments an object or a JSON string), with or without code fences around it. Null when it is neither.
 */
export function parseToolCall(
  text: string,
): { tool: 'run'; commands: string } | { tool: 'done'; answer: string } | null {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const call = value as Record<string, unknown>;
  const name = call.tool ?? call.name;
  let args: unknown = call.arguments ?? call;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  const a = (args ?? {}) as Record<string, unknown>;
  if (name === 'run' && typeof a.commands === 'string' && a.commands.trim() !== '')
    return { tool: 'run', commands: a.commands };
  if (name === 'done') return { tool: 'done', answer: typeof a.answer === 'string' ? a.answer : '' };
  return null;
}

/** The readable record of a run: each step's commands and output, then the answer. */
function transcriptOf(goal: string, steps: PromptStep[]): string {
  const lines = [`# goal: ${goal}`];
  for (const s of steps) {
    if (s.tool === 'run') {
      lines.push(`## step ${s.step}: run (exit ${s.result!.exitCode})`);
      lines.push(...s.commands!.split('\n').map((c) => `$ ${c}`));
      if (s.result!.stdout) lines.push(s.result!.stdout.trimEnd());
      if (s.result!.stderr) lines.push(s.result!.stderr.trimEnd());
    } else if (s.tool === 'done') {
      lines.push(`## step ${s.step}: done`, s.answer ?? '');
    } else {
      lines.push(`## step ${s.step}: not understood`, s.result!.stderr.trimEnd());
    }
  }
  return `${lines.join('\n')}\n`;
}

/** What the model is told at one step. */
function stepInput(goal: string, page: Page, snapshot: string, previous: PromptStep | undefined): string {
  const parts = [`Goal: ${goal}`, `Page: ${page.url()}`, `Snapshot (snapshot -i):\n${snapshot || '(empty)'}`];
  if (!previous) parts.push('Previous step: none (this is the first step).');
  else if (previous.tool === 'run') {
    const r = previous.result!;
    parts.push(
      `Previous step ran:\n${previous.commands}\nexit code ${r.exitCode}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`,
    );
  } else parts.push(`Previous answer was not understood: ${previous.result!.stderr}`);
  return parts.join('\n\n');
}

/**
 * Lets the server's LLM drive `page` with the command language towards `goal`: at each step the model gets the
 * goal, the page's `snapshot -i` and the previous step's output (each bounded), and answers one tool call,
 * `run` (a script, run by runCommands) or `done` (the answer). It ends at `done`, after `maxSteps`, when the
 * characters sent reach `maxTotalChars`, or at the deadline (exit code 124). Every step is kept; `stdout` is a
 * readable transcript of them. The caller runs one driver (or script) at a time per page.
 */
export async function drivePage(
  page: Page,
  goal: string,
  options: { deadline: Deadline; ask: AskLlm; limits?: Partial<PromptLimits> },
): Promise<PromptRun> {
  const { deadline, ask } = options;
  const limits = { ...PROMPT_LIMITS, ...options.limits };
  const steps: PromptStep[] = [];
  let sent = 0;
  let answer: string | null = null;
  let stop = '';
  let exitCode = 1;
  for (let step = 1; step <= limits.maxSteps; step++) {
    if (deadline.expired) {
      stop = deadline.timeoutError('the prompt').message;
      exitCode = 124;
      break;
    }
    const snap = await runCommands(page, 'snapshot -i', { deadline });
    const snapshot = cut(snap.exitCode === 0 ? snap.stdout : snap.stderr, limits.maxSnapshotChars);
    const previous = steps.at(-1);
    const shown = previous?.result
      ? {
          ...previous,
          result: {
            ...previous.result,
            stdout: cut(previous.result.stdout, limits.maxOutputChars),
            stderr: cut(previous.result.stderr, limits.maxOutputChars),
          },
        }
      : previous;
    const input = stepInput(goal, page, snapshot, shown);
    if (sent + input.length + INSTRUCTIONS.length > limits.maxTotalChars) {
      stop = `the prompt's budget of ${limits.maxTotalChars} characters sent to the model is spent`;
      break;
    }
    sent += input.length + INSTRUCTIONS.length;
    const text = await ask(
      { instructions: INSTRUCTIONS, input, schema: TOOL_SCHEMA, purpose: 'session' },
      deadline,
    );
    const call = parseToolCall(text);
    if (!call) {
      const why = `✗ the model's answer is not a run or done tool call: ${text.slice(0, 200)}\n`;
      steps.push({ step, tool: 'invalid', result: { stdout: '', stderr: why, exitCode: 2 } });
      continue;
    }
    if (call.tool === 'done') {
      steps.push({ step, tool: 'done', answer: call.answer });
      answer = call.answer;
      exitCode = 0;
      break;
    }
    const result = await runCommands(page, call.commands, { deadline });
    steps.push({ step, tool: 'run', commands: call.commands, result });
    if (result.exitCode === 124) {
      stop = deadline.timeoutError('the prompt').message;
      exitCode = 124;
      break;
    }
  }
  if (answer === null && !stop) stop = `the step budget (${limits.maxSteps}) is spent without done`;
  return {
    steps,
    answer,
    stdout: transcriptOf(goal, steps),
    stderr: stop ? `✗ ${stop}\n` : '',
    exitCode,
  };
}
