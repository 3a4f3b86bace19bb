/**
 * A command that failed on the page or was used wrongly: its message goes to `stderr` and the script's exit
 * code becomes `exitCode` (1 by default; 127 for an unknown command, 2 for a script that does not parse, as a
 * shell answers).
 */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}
