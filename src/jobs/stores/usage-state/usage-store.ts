import type { UsageCounts } from '../../../tenants/metering.js';

export type { UsageCounts };

/** The counters of a day, in the order every adapter stores and answers them. */
export const USAGE_FIELDS = ['pages', 'browserMs', 'documents', 'llmTokens', 'credits'] as const;

/** One tenant's counters of one UTC day (`YYYY-MM-DD`). */
export interface UsageDay extends Required<UsageCounts> {
  tenant: string;
  day: string;
}

/** What one `add` adds to one tenant's day; absent counters add nothing. */
export interface UsageAdd {
  tenant: string;
  day: string;
  counts: UsageCounts;
}

/** How long a day's counters are kept: more than a year, so that a year of months can be answered. */
export const USAGE_KEEP_DAYS = 400;

const DAY_MS = 86_400_000;

/** The day asked for last and the milliseconds it spans: every page counted asks for today. */
let lastDay = { from: 0, until: 0, day: '' };

/** The UTC day of `ms` as `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  if (ms >= lastDay.from && ms < lastDay.until) return lastDay.day;
  const day = new Date(ms).toISOString().slice(0, 10);
  const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  lastDay = { from, until: from + DAY_MS, day };
  return day;
}

/** Milliseconds since the epoch of a day's 00:00 UTC. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The day `n` days after `day` (before it when negative). */
export const addDays = (day: string, n: number): string => utcDay(dayStart(day) + n * DAY_MS);

/** Every day from `from` to `to`, both included (none when `from` is after `to`). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = dayStart(from), end = dayStart(to); at <= end; at += DAY_MS) days.push(utcDay(at));
  return days;
}

/** A day's counters with every field present (zero when never added to). */
export const fullCounts = (counts: UsageCounts): Required<UsageCounts> => ({
  pages: counts.pages ?? 0,
  browserMs: counts.browserMs ?? 0,
  documents: counts.documents ?? 0,
  llmTokens: counts.llmTokens ?? 0,
  credits: counts.credits ?? 0,
});

/** Whether `counts` adds anything (an add of nothing leaves no day behind). */
export const addsAnything = (counts: UsageCounts): boolean =>
  USAGE_FIELDS.some((field) => Math.round(counts[field] ?? 0) !== 0);

/** Order of `days` answers: by tenant, then by day. */
export const byTenantThenDay = (a: UsageDay, b: UsageDay): number =>
  a.tenant.localeCompare(b.tenant) || a.day.localeCompare(b.day);

/**
 * What each tenant used, per UTC day, beside the jobs: the SQLite file, Redis, or memory. Contract (one suite
 * runs against each adapter, test/jobs/usage-contract.ts):
 * - `add` adds each entry's counters to its (tenant, day), creating the day at zero; concurrent adds of any
 *   processes on one store all count (an UPSERT, HINCRBY): none is lost, none counted twice; an entry that
 *   adds nothing leaves no day. It resolves once durable in the adapter's terms (SQLite: committed; Redis:
 *   acknowledged). Counters are integers (a fraction is rounded).
 * - `days(from, to, tenant?)` answers the days in `[from, to]` that were added to, of `tenant` or of every
 *   tenant, ordered by tenant then day, every counter present.
 * - `purge(before)` drops days before `before` (Redis expires them on its own USAGE_KEEP_DAYS after their day).
 */
export interface UsageStore {
  add(adds: UsageAdd[]): Promise<void>;
  days(from: string, to: string, tenant?: string): Promise<UsageDay[]>;
  purge(before: string): Promise<number>;
}

/** A process's own usage (tests, and a process without its job store's file). */
export class MemoryUsageStore implements UsageStore {
  /** Counters by `day tenant`. */
  private readonly byDay = new Map<string, UsageDay>();

  add(adds: UsageAdd[]): Promise<void> {
    for (const { tenant, day, counts } of adds) {
      if (!addsAnything(counts)) continue;
      const key = `${day} ${tenant}`;
      const held = this.byDay.get(key) ?? { tenant, day, ...fullCounts({}) };
      for (const field of USAGE_FIELDS) held[field] += Math.round(counts[field] ?? 0);
      this.byDay.set(key, held);
    }
    return Promise.resolve();
  }

  days(from: string, to: string, tenant?: string): Promise<UsageDay[]> {
    const found = [...this.byDay.values()].filter(
      (d) => d.day >= from && d.day <= to && (tenant === undefined || d.tenant === tenant),
    );
    return Promise.resolve(found.map((d) => ({ ...d })).sort(byTenantThenDay));
  }

  purge(before: string): Promise<number> {
    let dropped = 0;
    for (const [key, d] of this.byDay) {
      if (d.day >= before) continue;
      this.byDay.delete(key);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}
