/**
 * Splits a script of agent-browser commands into words the way a POSIX shell would, without ever running one:
 * commands are separated by newlines and `;`, chained with `&&` (the next runs only when the previous
 * succeeded) and `||` (only when it failed). Words are split on blanks; "double quotes" keep blanks and take
 * backslash escapes (\" \\ \$ \`), 'single quotes' keep everything as is, a backslash outside quotes escapes
 * the next character, a backslash before a newline joins the lines, and `#` at the start of a word comments
 * out the rest of the line. `$` is never expanded. Pipes, redirections, background jobs and command
 * substitution are refused with a message: there is no shell to run them.
 */

/** How a command is joined to the one before it. */
export type Joiner = 'first' | 'and' | 'or';

/** One command of a script: its words (the `agent-browser` prefix still on) and how it joins the previous one. */
export interface ScriptCommand {
  argv: string[];
  /** `first`: runs unconditionally (start of the script, a new line or after `;`). */
  joiner: Joiner;
  /** 1-based line of the script the command starts on, for messages. */
  line: number;
}

/** The script cannot be parsed; nothing of it was run. */
export class ScriptSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptSyntaxError';
  }
}

const BLANK = /[ \t\r]/;
/** Unquoted characters that would need a shell. */
const SHELL_ONLY: Record<string, string> = {
  '|': 'pipes (|)',
  '>': 'redirections (>)',
  '<': 'redirections (<)',
  '`': 'command substitution (`...`)',
  '(': 'subshells and command substitution ( ( ) )',
  ')': 'subshells and command substitution ( ( ) )',
  '&': 'background jobs (&)',
};

export function parseScript(script: string): ScriptCommand[] {
  const commands: ScriptCommand[] = [];
  let argv: string[] = [];
  let word: string | null = null; // null: between words ('' is an empty quoted word)
  let joiner: Joiner = 'first';
  let pendingJoiner: Joiner | null = null; // set by && / ||, waiting for its right-hand command
  let line = 1;
  let commandLine = 1;
  let i = 0;

  const endWord = (): void => {
    if (word !== null) {
      if (argv.length === 0) commandLine = line;
      argv.push(word);
    }
    word = null;
  };
  /** Ends the current command (callers make sure it has words, except at a newline). */
  const endCommand = (next: Joiner | null): void => {
    endWord();
    if (argv.length === 0) return;
    commands.push({ argv, joiner, line: commandLine });
    argv = [];
    joiner = next ?? 'first';
    pendingJoiner = next;
  };

  while (i < script.length) {
    const c = script[i]!;
    if (c === '\\') {
      const next = script[i + 1];
      if (next === '\n') {
        line++;
        i += 2;
        continue;
      }
      if (next === undefined) throw new ScriptSyntaxError(`line ${line}: the script ends with a backslash`);
      word = (word ?? '') + next;
      i += 2;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) throw new ScriptSyntaxError(`line ${line}: unterminated single quote`);
      const text = script.slice(i + 1, end);
      line += text.split('\n').length - 1;
      word = (word ?? '') + text;
      i = end + 1;
    } else if (c === '"') {
      const [text, end, lines] = readDoubleQuoted(script, i + 1, line);
      word = (word ?? '') + text;
      line += lines;
      i = end + 1;
    } else if (c === '#' && word === null) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (c === '\n') {
      // A command left open by && or || continues on the next line, as in a shell.
      endCommand(null);
      line++;
      i++;
    } else if (c === ';') {
      if (argv.length === 0 && word === null) throw new ScriptSyntaxError(`line ${line}: nothing before ;`);
      endCommand(null);
      i++;
    } else if ((c === '&' || c === '|') && script[i + 1] === c) {
      const op = c === '&' ? '&&' : '||';
      if (argv.length === 0 && word === null)
        throw new ScriptSyntaxError(`line ${line}: nothing before ${op}`);
      endCommand(c === '&' ? 'and' : 'or');
      i += 2;
    } else if (SHELL_ONLY[c] !== undefined || (c === '$' && script[i + 1] === '(')) {
      throw new ScriptSyntaxError(
        `line ${line}: ${SHELL_ONLY[c] ?? 'command substitution ($(...))'} need a shell, and commands run ` +
          'without one; quote the character to pass it as text',
      );
    } else if (BLANK.test(c)) {
      endWord();
      i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endWord();
  if (argv.length > 0) commands.push({ argv, joiner, line: commandLine });
  else if (pendingJoiner !== null)
    throw new ScriptSyntaxError(`line ${line}: the script ends after && or ||`);
  return commands;
}

/** Reads a double-quoted string from `start` (after the quote); returns its text, the closing quote's index, lines. */
function readDoubleQuoted(script: string, start: number, line: number): [string, number, number] {
  let text = '';
  let lines = 0;
  for (let i = start; i < script.length; i++) {
    const c = script[i]!;
    if (c === '"') return [text, i, lines];
    if (c === '\n') lines++;
    if (c === '\\') {
      const next = script[i + 1];
      if (next === '"' || next === '\\' || next === '$' || next === '`') {
        text += next;
        i++;
        continue;
      }
      if (next === '\n') {
        lines++;
        i++;
        continue;
      }
    }
    text += c;
  }
  throw new ScriptSyntaxError(`line ${line}: unterminated double quote`);
}
