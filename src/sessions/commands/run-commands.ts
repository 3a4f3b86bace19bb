import type { Page } from 'playwright-core';
import type { Deadline } from '../../lib/deadline.js';
import { ACTIONS } from './actions.js';
import type { Command } from './args.js';
import { CommandError } from './command-error.js';
import { parseScript, ScriptSyntaxError } from './parse-script.js';
import { QUERIES } from './queries.js';

export interface RunCommandsOptions {
  /** Bounds every command; a script still running when it ends stops with exit code 124. */
  deadline: Deadline;
}

/** What a shell would have printed and returned for the script (the SDK's `BrowserExecuteResponse` fields). */
export interface CommandsResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const COMMANDS: Record<string, Command> = { ...ACTIONS, ...QUERIES };

/** Every command name the language takes (aliases included), for messages and docs. */
export const SUPPORTED_COMMANDS: readonly string[] = Object.keys(COMMANDS).sort();

/** Exit codes, as a shell and GNU `timeout` give them. */
const EXIT = { failed: 1, syntax: 2, timedOut: 124, unknown: 127 } as const;

/**
 * Runs a script of agent-browser commands against `page`, with no shell: each command is parsed here
 * (parse-script.ts) and done through Playwright. Commands run one after the other, as a shell runs lines:
 * `a && b` runs b only when a succeeded, `a || b` only when it failed, and a failing line does not stop the
 * next one; the exit code is the last command's. Each command's output goes to `stdout` (one line or block
 * each), a failure's message to `stderr`. Nothing here fetches a URL from Node: navigation happens in the page,
 * whose network goes through the SSRF guard like any scrape's.
 *
 * Callers run one script at a time per page (the page's state, and its snapshot refs, are shared).
 */
export async function runCommands(
  page: Page,
  script: string,
  options: RunCommandsOptions,
): Promise<CommandsResult> {
  const { deadline } = options;
  let commands;
  try {
    commands = parseScript(script);
  } catch (err) {
    if (err instanceof ScriptSyntaxError)
      return { stdout: '', stderr: `✗ ${err.message}\n`, exitCode: EXIT.syntax };
    throw err;
  }
  let stdout = '';
  let stderr = '';
  let status = 0;
  for (const { argv, joiner } of commands) {
    if ((joiner === 'and' && status !== 0) || (joiner === 'or' && status === 0)) continue;
    if (deadline.expired) {
      stderr += `✗ ${deadline.timeoutError('the script').message}\n`;
      return { stdout, stderr, exitCode: EXIT.timedOut };
    }
    try {
      const [name, ...args] = commandWords(argv);
      const command = COMMANDS[name] ?? unknown(name);
      stdout += `${await deadline.race(command({ page, deadline }, args), name)}\n`;
      status = 0;
    } catch (err) {
      if (deadline.expired) {
        stderr += `✗ ${deadline.timeoutError(argv.join(' ').slice(0, 80)).message}\n`;
        return { stdout, stderr, exitCode: EXIT.timedOut };
      }
      stderr += `✗ ${messageOf(err)}\n`;
      status = err instanceof CommandError ? err.exitCode : EXIT.failed;
    }
  }
  return { stdout, stderr, exitCode: status };
}

/** The command's words without the `agent-browser` prefix Firecrawl's skills send. */
function commandWords(argv: string[]): [string, ...string[]] {
  const words = argv[0] === 'agent-browser' ? argv.slice(1) : argv;
  const [name, ...args] = words;
  if (name === undefined) throw new CommandError('agent-browser needs a command', EXIT.syntax);
  if (name.startsWith('-')) {
    throw new CommandError(
      `Global option ${name} is not supported: a session is one browser page, already open`,
      EXIT.syntax,
    );
  }
  return [name, ...args];
}

function unknown(name: string): never {
  throw new CommandError(
    `Unknown command '${name}'. Supported commands: ${SUPPORTED_COMMANDS.join(', ')}`,
    EXIT.unknown,
  );
}

/** The first line of an error's message, without Playwright's call log and terminal colours. */
function messageOf(err: unknown): string {
  if (err instanceof CommandError) return err.message;
  const text = err instanceof Error ? err.message : String(err);
  // eslint-disable-next-line no-control-regex
  return (text.split('\n')[0] ?? text).replace(/\u001b\[[0-9;]*m/g, '').trim();
}
