import { CronExpressionParser } from 'cron-parser';
import { BadRequestError } from '../errors.js';
import { textToCron } from './schedule-text.js';

/** A monitor's schedule as a caller sends it: exactly one of `cron` and `text`, optionally a time zone. */
export interface ScheduleInput {
  cron?: string;
  text?: string;
  timezone?: string;
}

/** A schedule as it is stored and fired: a cron of 5 fields (6 with seconds first) in an IANA time zone. */
export interface Schedule {
  cron: string;
  timezone: string;
}

/** Longest cron or text read: a schedule is a handful of words. */
const MAX_LENGTH = 200;
const DAY_SECONDS = 86_400;
const TEXT_EXAMPLES =
  '"every 30 minutes", "every 10 seconds", "hourly", "daily at 9am", "every monday at 9:30", ' +
  '"weekdays at 8:30am", "weekly on friday at 5pm", "monthly"';

function refuse(field: string, why: string): never {
  throw new BadRequestError(`${field}: ${why}`);
}

/** The time zone's canonical IANA name ("europe/paris" is Europe/Paris); a 400 naming the field otherwise. */
function normalizeTimezone(timezone: string | undefined, field: string): string {
  if (timezone === undefined) return 'UTC';
  if (timezone.length > MAX_LENGTH) refuse(field, `at most ${MAX_LENGTH} characters`);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return refuse(
      field,
      `"${timezone}" is not an IANA time zone (e.g. "UTC", "Europe/Paris", "America/New_York")`,
    );
  }
}

/** The cron's fields joined by single spaces; a 400 naming `field` when it is not a cron we fire. */
function checkedCron(cron: string, timezone: string, field: string): string {
  if (cron.length > MAX_LENGTH) refuse(field, `at most ${MAX_LENGTH} characters`);
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    refuse(
      field,
      `"${cron}" has ${fields.length} field(s); a cron has 5 (minute hour day-of-month month day-of-week) or 6 with seconds first`,
    );
  }
  // Hashed values ("H") are placed by a seed that each scheduler would pick on its own.
  if (fields.some((f) => /(?:^|[,/-])H(?=$|[,/(-])/i.test(f)))
    refuse(field, 'hashed values (H) are not supported');
  try {
    // A cron that parses but never fires (30 February) is refused here too.
    CronExpressionParser.parse(fields.join(' '), { tz: timezone, currentDate: Date.now() }).next();
  } catch (err) {
    refuse(field, `"${cron}" is not a valid cron expression (${(err as Error).message})`);
  }
  return fields.join(' ');
}

/**
 * The closest two ticks of `cron` come, in seconds, on its own clock: the closest two times of day it fires,
 * and its last time of a day to its first of the next, counted as if every day fired (which can only make it
 * shorter). Any two ticks, not the next two: a check of the next two alone passes a cron whose close ticks are
 * later in the day. A daylight-saving change can bring two ticks closer, at most once a year.
 */
export function shortestInterval(cron: string): number {
  const { second, minute, hour } = CronExpressionParser.parse(cron).fields;
  const times = hour.values
    .flatMap((h) =>
      minute.values.flatMap((m) => second.values.map((s) => Number(h) * 3600 + Number(m) * 60 + Number(s))),
    )
    .sort((a, b) => a - b);
  let shortest = DAY_SECONDS - times[times.length - 1]! + times[0]!;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  return shortest;
}

/**
 * A 400 naming `field` when the ticks of `cron` (the caller's `shown` form of it) can come closer than
 * `minSeconds` (MIN_MONITOR_INTERVAL_SECONDS).
 */
export function checkInterval(
  schedule: Pick<Schedule, 'cron'>,
  minSeconds: number,
  field: string,
  shown = schedule.cron,
): void {
  const shortest = shortestInterval(schedule.cron);
  if (shortest < minSeconds) {
    refuse(
      field,
      `"${shown}" ticks ${shortest} s apart at its closest; monitors here tick at least ${minSeconds} s apart (MIN_MONITOR_INTERVAL_SECONDS)`,
    );
  }
}

/**
 * A caller's schedule as a cron in a time zone: exactly one of `cron` (5 fields, or 6 with seconds first) and
 * `text` (plain language, normalized to cron), `timezone` an IANA name (default UTC), its ticks at least
 * `minIntervalSeconds` apart. Bad input is a 400 naming the field (`schedule.cron`, `schedule.text`,
 * `schedule.timezone`).
 */
export function normalizeSchedule(
  schedule: ScheduleInput,
  field = 'schedule',
  minIntervalSeconds = 0,
): Schedule {
  const hasCron = schedule.cron !== undefined;
  const hasText = schedule.text !== undefined;
  if (hasCron === hasText) {
    refuse(field, `give exactly one of cron (e.g. "*/30 * * * *") and text (e.g. "every 30 minutes")`);
  }
  const timezone = normalizeTimezone(schedule.timezone, `${field}.timezone`);
  if (hasCron) {
    const cron = checkedCron(schedule.cron!, timezone, `${field}.cron`);
    checkInterval({ cron }, minIntervalSeconds, `${field}.cron`, schedule.cron);
    return { cron, timezone };
  }
  const text = schedule.text!;
  const textField = `${field}.text`;
  if (text.length > MAX_LENGTH) refuse(textField, `at most ${MAX_LENGTH} characters`);
  const read = textToCron(text);
  if (read === null)
    refuse(textField, `cannot read "${text}" as a schedule; write e.g. ${TEXT_EXAMPLES}, or give cron`);
  if ('why' in read) refuse(textField, `"${text}": ${read.why}`);
  const cron = checkedCron(read.cron, timezone, textField);
  checkInterval({ cron }, minIntervalSeconds, textField, text);
  return { cron, timezone };
}

/** The first tick of `cron` in `timezone` strictly after `after` (ms since the epoch). */
export function nextTick(cron: string, timezone: string, after: number): number {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: after }).next().getTime();
}
