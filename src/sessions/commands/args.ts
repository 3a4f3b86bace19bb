import type { Page } from 'playwright-core';
import type { Deadline } from '../../lib/deadline.js';
import { CommandError } from './command-error.js';

/** What a command runs against. */
export interface CommandContext {
  page: Page;
  deadline: Deadline;
}

/** One command of the language: its words after the name in, its stdout text out (or a thrown CommandError). */
export type Command = (ctx: CommandContext, args: string[]) => Promise<string>;

export const DONE = '✓ Done';

/** Playwright's `timeout` for one call: what is left of the deadline (Playwright reads 0 as "no timeout"). */
export function timeoutOf(deadline: Deadline): { timeout: number } {
  return { timeout: Math.max(1, deadline.remainingMs()) };
}

/** The argument at `index`, or a usage error naming the command's form. */
export function required(args: string[], index: number, usage: string): string {
  const value = args[index];
  if (value === undefined || value === '') throw new CommandError(`Missing arguments. Usage: ${usage}`);
  return value;
}

/**
 * Takes `--name <value>` (or a short alias) out of `args`; returns its value, or undefined when absent.
 * `args` keeps the other words in order.
 */
export function takeOption(args: string[], names: string[], usage: string): string | undefined {
  const at = args.findIndex((a) => names.includes(a));
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined) throw new CommandError(`${args[at]} needs a value. Usage: ${usage}`);
  args.splice(at, 2);
  return value;
}

/** Takes a bare `--flag` (or a short alias) out of `args`; true when it was there. */
export function takeFlag(args: string[], names: string[]): boolean {
  const at = args.findIndex((a) => names.includes(a));
  if (at < 0) return false;
  args.splice(at, 1);
  return true;
}

/** A whole number of at least `min`, or a usage error. */
export function wholeNumber(raw: string, what: string, min = 0): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw new CommandError(`${what} must be a number, got '${raw}'`);
  return Number(raw);
}
