import { BadRequestError } from '../errors.js';
import {
  USAGE_FIELDS,
  USAGE_KEEP_DAYS,
  dayStart,
  fullCounts,
  utcDay,
} from '../jobs/stores/usage-state/usage-store.js';
import type { UsageQuery, UsageReply } from '../schemas/usage.js';
import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import type { Usage } from '../tenants/usage.js';

/** A day as the query gave it, refused unless it is a real date (`2026-02-30` is not). */
function dayOf(name: string, value: string): string {
  const ms = dayStart(value);
  if (Number.isNaN(ms) || utcDay(ms) !== value) throw new BadRequestError(`${name}: ${value} is not a date`);
  return value;
}

/**
 * GET /api/v1/usage: the days from `from` to `to` (both UTC, both included; default today) with usage, of the
 * caller's tenant; an operator's, of every tenant or the one `tenant` names. At most USAGE_KEEP_DAYS days: no
 * older day is kept.
 */
export async function usageReport(usage: Usage, query: UsageQuery, caller: Caller): Promise<UsageReply> {
  const to = query.to === undefined ? utcDay(Date.now()) : dayOf('to', query.to);
  const from = query.from === undefined ? to : dayOf('from', query.from);
  if (from > to) throw new BadRequestError(`from (${from}) is after to (${to})`);
  const span = Math.round((dayStart(to) - dayStart(from)) / 86_400_000) + 1;
  if (span > USAGE_KEEP_DAYS)
    throw new BadRequestError(`from..to spans ${span} days; at most ${USAGE_KEEP_DAYS} (the days kept)`);
  const data = await usage.days(from, to, listedOwner(caller, query.tenant));
  const total = fullCounts({});
  for (const d of data) for (const field of USAGE_FIELDS) total[field] += d[field];
  return { success: true as const, from, to, data, total };
}
