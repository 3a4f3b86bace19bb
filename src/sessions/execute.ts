import { BadRequestError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import { Gate } from '../lib/gate.js';
import { checkLanguage } from './commands/language.js';
import { runCommands } from './commands/run-commands.js';
import type { SandboxLimits } from './node-code/isolation.js';
import { NodeSandbox } from './node-code/sandbox.js';
import { drivePage } from './prompt-driver.js';
import type { AskLlm, PromptLimits } from './prompt-driver.js';
import type { BrowserSessions } from './sessions.js';
import type { Caller } from '../tenants/tenant.js';

/** One execute request: a script in the command language, or a goal for the server's LLM. */
export interface ExecuteRequest {
  code?: string;
  prompt?: string;
  /** `bash` (default) or `node`; ignored with a prompt. */
  language?: string;
  /** Seconds for the whole request. */
  timeout?: number;
}

/** What the script printed and returned, bounded, with the prompt's final answer. */
export interface ExecuteResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The prompt's final answer (null without a prompt, or when the model never said done). */
  result: string | null;
  /** The request's timeout ended it (exit code 124). */
  killed: boolean;
  /** `stdout` or `stderr` was cut at its bound. */
  truncated: boolean;
}

export interface ExecuteDeps {
  /** BROWSER_EXECUTE_CODE: whether `language: "node"` may be asked for. */
  browserExecuteCode: boolean;
  /** The server's LLM (OPENAI_BASE_URL, MODEL_NAME), for prompts; null without one. */
  ask: AskLlm | null;
  limits?: Partial<PromptLimits & { maxStdoutChars: number; maxStderrChars: number }>;
  /** Where `node` code runs (made on first use when absent, with `codeLimits`). */
  sandbox?: NodeSandbox;
  /** BROWSER_CODE_MEMORY_BYTES and BROWSER_CODE_CPU_SECONDS. */
  codeLimits: SandboxLimits;
}

/** Seconds a request runs without a `timeout`: a script, and a prompt (several LLM calls). */
const DEFAULT_TIMEOUT_S = { code: 30, node: 30, prompt: 120 };
const MAX_STDOUT_CHARS = 1_000_000;
const MAX_STDERR_CHARS = 64_000;
/** Requests waiting for their session's page (one runs at a time). */
const MAX_QUEUED = 8;

/**
 * Execute on a session's page: checks the request (a 400 before anything runs), then runs it on the session's
 * current page, one request at a time per session (a later one waits its turn), within its `timeout`.
 */
export class SessionExecutor {
  private readonly turns = new Map<string, Gate>();
  private sandbox: NodeSandbox | null = null;

  constructor(
    private readonly sessions: BrowserSessions,
    private readonly deps: ExecuteDeps,
  ) {}

  /** The request's 400s: no code nor prompt, a prompt without the server's LLM, a language not served. */
  check(req: ExecuteRequest): 'prompt' | 'code' | 'node' {
    if (req.prompt !== undefined && req.prompt.trim() !== '') {
      if (!this.deps.ask) {
        throw new BadRequestError(
          'prompt needs the server\'s LLM (set OPENAI_BASE_URL and MODEL_NAME); send "code" with agent-browser commands instead',
        );
      }
      return 'prompt';
    }
    if (req.code === undefined || req.code.trim() === '')
      throw new BadRequestError('execute needs "code" (agent-browser commands) or "prompt"');
    if (checkLanguage(req.language, this.deps) === 'node') return 'node';
    return 'code';
  }

  /**
   * Runs the request in session `id` (404 when it is not `caller`'s to reach); `signal` is the caller going
   * away.
   */
  async execute(
    id: string,
    req: ExecuteRequest,
    signal: AbortSignal | undefined,
    caller: Caller,
  ): Promise<ExecuteResult> {
    const kind = this.check(req);
    const seconds = req.timeout ?? DEFAULT_TIMEOUT_S[kind];
    if (kind === 'node') await this.nodeSandbox().ensureAvailable();
    const turn = this.turnOf(id);
    try {
      return await turn.run(async () => {
        const deadline = Deadline.after(seconds * 1000, signal);
        try {
          return await this.sessions.withPage(id, caller, async (page) => {
            if (kind === 'node') {
              const out = await this.nodeSandbox().run({
                code: req.code!,
                deadline,
                connect: (client) => this.sessions.connectCdp(id, client, caller),
                ...this.bounds(),
              });
              return this.bounded(out);
            }
            if (kind === 'code') {
              const out = await runCommands(page, req.code!, { deadline });
              return this.bounded({ ...out, result: null });
            }
            const { stdout, stderr, exitCode, answer } = await drivePage(page, req.prompt!, {
              deadline,
              ask: this.deps.ask!,
              ...(this.deps.limits ? { limits: this.deps.limits } : {}),
            });
            return this.bounded({ stdout, stderr, exitCode, result: answer });
          });
        } finally {
          deadline.dispose();
        }
      }, signal);
    } finally {
      if (turn.active === 0 && turn.waiting === 0) this.turns.delete(id);
    }
  }

  private turnOf(id: string): Gate {
    let turn = this.turns.get(id);
    if (!turn) {
      turn = new Gate(`execute in session ${id}`, 1, MAX_QUEUED);
      this.turns.set(id, turn);
    }
    return turn;
  }

  private nodeSandbox(): NodeSandbox {
    this.sandbox ??= this.deps.sandbox ?? new NodeSandbox(this.deps.codeLimits);
    return this.sandbox;
  }

  private bounds(): { maxStdoutChars: number; maxStderrChars: number } {
    return {
      maxStdoutChars: this.deps.limits?.maxStdoutChars ?? MAX_STDOUT_CHARS,
      maxStderrChars: this.deps.limits?.maxStderrChars ?? MAX_STDERR_CHARS,
    };
  }

  private bounded(out: Omit<ExecuteResult, 'killed' | 'truncated'>): ExecuteResult {
    const { maxStdoutChars: maxOut, maxStderrChars: maxErr } = this.bounds();
    const truncated = out.stdout.length > maxOut || out.stderr.length > maxErr;
    return {
      ...out,
      stdout: out.stdout.slice(0, maxOut),
      stderr: out.stderr.slice(0, maxErr),
      killed: out.exitCode === 124,
      truncated,
    };
  }
}
