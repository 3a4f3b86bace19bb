import { USAGE_KEEP_DAYS, addDays, dayStart, utcDay } from '../jobs/stores/usage-state/usage-store.js';
import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import type { FirecrawlDeps } from './deps.js';

/** What a self-hosted server without a daily limit answers as remaining and plan (JSON has no infinity). */
export const UNLIMITED = 999_999_999;

export type UsageUnit = 'Credits' | 'Tokens';

/** The counter of the usage store behind each of Firecrawl's units. */
const FIELD = { Credits: 'credits', Tokens: 'llmTokens' } as const;
/** The daily limit that stands for a plan: pages for credits (a credit is a page's document), tokens. */
const LIMIT = { Credits: 'pagesPerDay', Tokens: 'llmTokensPerDay' } as const;
const iso = (day: string): string => new Date(dayStart(day)).toISOString();

/**
 * GET /v{1,2}/team/credit-usage and token-usage. The billing period is the UTC day; the plan is the caller's
 * tenant's daily limit (PAGES_PER_TENANT_PER_DAY for credits, LLM_TOKENS_PER_TENANT_PER_DAY for tokens) and
 * what remains of it today, or UNLIMITED without one. `creditsUsed`/`tokensUsed` are today's: the tenant's,
 * an operator's of every tenant. Both spellings (camelCase v2, snake_case v1) in one answer.
 */
export async function fcUsage(fc: FirecrawlDeps, unit: UsageUnit, caller: Caller) {
  const { usage } = fc.services;
  const today = utcDay(Date.now());
  const days = await usage.days(today, today, listedOwner(caller));
  const field = FIELD[unit];
  const used = days.reduce((sum, d) => sum + d[field], 0);
  const limit = usage.limitsOf(caller.tenant)[LIMIT[unit]];
  const own = days.find((d) => d.tenant === caller.tenant);
  // Credits stand for pages here: what the daily limit counts.
  const spent = own ? (unit === 'Credits' ? own.pages : own.llmTokens) : 0;
  const plan = limit === 0 ? UNLIMITED : limit;
  const remaining = limit === 0 ? UNLIMITED : Math.max(0, limit - spent);
  const start = iso(today);
  const end = iso(addDays(today, 1));
  const snake = unit === 'Credits' ? 'credits' : 'tokens';
  return {
    success: true as const,
    data: {
      [`remaining${unit}`]: remaining,
      [`plan${unit}`]: plan,
      [`${snake}Used`]: used,
      billingPeriodStart: start,
      billingPeriodEnd: end,
      [`remaining_${snake}`]: remaining,
      [`plan_${snake}`]: plan,
      [`${snake}_used`]: used,
      billing_period_start: start,
      billing_period_end: end,
    },
  };
}

/**
 * GET /v{1,2}/team/{credit,token}-usage/historical: one period per calendar month (UTC) with usage, over the
 * days kept (USAGE_KEEP_DAYS), oldest first; the current month's `endDate` is null, as Firecrawl answers.
 * `byApiKey=true` splits each month by tenant, named in `apiKey` (keys are never shown): a normal key sees
 * its own tenant's, an operator's key every tenant's.
 */
export async function fcUsageHistorical(
  fc: FirecrawlDeps,
  unit: UsageUnit,
  caller: Caller,
  byApiKey: boolean,
) {
  const today = utcDay(Date.now());
  const days = await fc.services.usage.days(addDays(today, 1 - USAGE_KEEP_DAYS), today, listedOwner(caller));
  const field = FIELD[unit];
  const sums = new Map<string, { month: string; tenant?: string; used: number }>();
  for (const d of days) {
    const month = d.day.slice(0, 7);
    const key = byApiKey ? `${month} ${d.tenant}` : month;
    const sum = sums.get(key) ?? { month, ...(byApiKey ? { tenant: d.tenant } : {}), used: 0 };
    sum.used += d[field];
    sums.set(key, sum);
  }
  const thisMonth = today.slice(0, 7);
  const periods = [...sums.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { month, tenant, used }]) => ({
      startDate: iso(`${month}-01`),
      endDate: month === thisMonth ? null : iso(nextMonth(month)),
      ...(tenant !== undefined ? { apiKey: tenant } : {}),
      [unit === 'Credits' ? 'creditsUsed' : 'tokensUsed']: used,
    }));
  return { success: true as const, periods };
}

/** The first day of the month after `month` (`YYYY-MM`). */
function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return utcDay(Date.UTC(year, m, 1));
}
