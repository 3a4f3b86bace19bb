/**
 * Plain-language schedules ("every 30 minutes", "daily at 9am", "weekdays at 8:30am") as cron expressions: the
 * text firecrawl-mcp and Firecrawl's SDK send. Pure; answers null for text it cannot read, so the caller names
 * the field in its error.
 */

type Unit = 'second' | 'minute' | 'hour' | 'day';

const UNITS: Record<string, Unit> = {
  s: 'second',
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  hour: 'hour',
  hours: 'hour',
  day: 'day',
  days: 'day',
};

/** Words that name a schedule on their own. */
const FIXED: Record<string, string> = {
  'every second': '* * * * * *',
  'every minute': '* * * * *',
  minutely: '* * * * *',
  'every hour': '0 * * * *',
  hourly: '0 * * * *',
  'every day': '0 0 * * *',
  daily: '0 0 * * *',
  'every week': '0 0 * * 0',
  weekly: '0 0 * * 0',
  'every month': '0 0 1 * *',
  monthly: '0 0 1 * *',
};

const WEEKDAYS: Record<string, number> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};

/** What a cron can space evenly: a step must divide its field's cycle. */
const CYCLE: Record<Unit, number> = { second: 60, minute: 60, hour: 24, day: 1 };
const LARGER: Partial<Record<Unit, Unit>> = { second: 'minute', minute: 'hour', hour: 'day' };

/** Why an interval cannot be a cron, or its cron. */
export type IntervalCron = { cron: string } | { why: string };

/** "every N units": a step that divides the unit's cycle (60 seconds or minutes, 24 hours), 1 or 7 days. */
export function intervalCron(count: number, unit: Unit): IntervalCron {
  if (!Number.isSafeInteger(count) || count < 1) return { why: 'the interval must be a whole number ≥ 1' };
  let n = count;
  let u = unit;
  // 120 seconds is every 2 minutes, 48 hours every 2 days.
  for (let larger = LARGER[u]; larger && n % CYCLE[u] === 0; larger = LARGER[u]) {
    n /= CYCLE[u];
    u = larger;
  }
  if (u === 'day') {
    if (n === 1) return { cron: '0 0 * * *' };
    if (n === 7) return { cron: '0 0 * * 0' };
    return { why: 'a cron cannot space days evenly across months: use 1 or 7 days, or a cron' };
  }
  if (CYCLE[u] % n !== 0) {
    const divisors = Array.from({ length: CYCLE[u] - 1 }, (_, i) => i + 1).filter((d) => CYCLE[u] % d === 0);
    return {
      why: `ticks every ${n} ${u}s would not be evenly spaced in a cron; use one of ${divisors.join(', ')} ${u}s`,
    };
  }
  const step = n === 1 ? '*' : `*/${n}`;
  if (u === 'second') return { cron: `${step} * * * * *` };
  if (u === 'minute') return { cron: `${step} * * * *` };
  return { cron: `0 ${step} * * *` };
}

/** "9am", "9:30", "5 pm", "17:00", "noon", "midnight" as hour and minute; null otherwise. */
function timeOfDay(text: string): { hour: number; minute: number } | null {
  if (text === 'noon') return { hour: 12, minute: 0 };
  if (text === 'midnight') return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))? ?(am|pm|a\.m\.|p\.m\.)?$/.exec(text);
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const half = match[3]?.[0];
  if (minute > 59) return null;
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute };
}

/** "monday", "mondays", "mon, wed and fri" as sorted day-of-week numbers; null when a word is no day. */
function weekdays(text: string): number[] | null {
  const days = new Set<number>();
  for (const word of text.split(/\s*(?:,|&|\band\b)\s*/)) {
    const name = word.trim();
    const day = WEEKDAYS[name] ?? (name.endsWith('s') ? WEEKDAYS[name.slice(0, -1)] : undefined);
    if (day === undefined) return null;
    days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

/** The day part of a time-of-day schedule as cron's day-of-month and day-of-week fields; null when unread. */
function dayFields(text: string): { dayOfMonth: string; dayOfWeek: string } | null {
  const every = { dayOfMonth: '*', dayOfWeek: '*' };
  if (text === '' || text === 'daily') return every;
  if (text === 'monthly') return { dayOfMonth: '1', dayOfWeek: '*' };
  if (text === 'weekly') return { dayOfMonth: '*', dayOfWeek: '0' };
  const rest = text.replace(/^(?:weekly on|every|each|on)\s+/, '');
  if (rest === 'day') return every;
  if (rest === 'weekday' || rest === 'weekdays') return { dayOfMonth: '*', dayOfWeek: '1-5' };
  if (rest === 'weekend' || rest === 'weekends') return { dayOfMonth: '*', dayOfWeek: '0,6' };
  const days = weekdays(rest);
  return days && days.length > 0 ? { dayOfMonth: '*', dayOfWeek: days.join(',') } : null;
}

const AT = /(?:^| )at (noon|midnight|\d{1,2}(?::\d{2})? ?(?:am|pm|a\.m\.|p\.m\.)?)(?= |$)/;

/**
 * A plain-language schedule as a cron expression (5 fields, or 6 when it ticks in seconds), case-insensitive;
 * `{ why }` when the text is a recognized interval cron cannot express, null when it is not read at all.
 */
export function textToCron(text: string): IntervalCron | null {
  const words = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const fixed = FIXED[words];
  if (fixed) return { cron: fixed };
  const interval = /^every (\d{1,9}) ([a-z]+)$/.exec(words);
  if (interval) {
    const unit = UNITS[interval[2]!];
    return unit ? intervalCron(Number(interval[1]), unit) : null;
  }
  const at = AT.exec(words);
  if (!at) return null;
  const time = timeOfDay(at[1]!);
  const days = dayFields(words.replace(at[0], '').trim());
  if (!time || !days) return null;
  return { cron: `${time.minute} ${time.hour} ${days.dayOfMonth} * ${days.dayOfWeek}` };
}
