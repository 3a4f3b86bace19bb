import type { CheckPage, CheckRecord, MonitorRecord } from '../../jobs/stores/monitor-state/monitor-store.js';
import type { MonitorConfig } from '../../monitors/monitor-config.js';
import type { Origin } from '../jobs.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A monitor as Firecrawl's `Monitor` (the definition as it was given, the schedule normalized to cron). */
export function monitorView(m: MonitorRecord): Record<string, unknown> {
  const config = m.config as unknown as MonitorConfig;
  const surface = config.surface as {
    schedule: Record<string, unknown>;
    targets: unknown[];
    webhook: unknown;
    notification: unknown;
  };
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    schedule: { ...surface.schedule, cron: m.cron, timezone: m.timezone },
    nextRunAt: iso(m.nextRunAt),
    lastRunAt: iso(m.lastRunAt),
    currentCheckId: m.currentCheckId,
    targets: surface.targets,
    webhook: surface.webhook,
    notification: surface.notification,
    retentionDays: m.retentionDays,
    estimatedCreditsPerMonth: null,
    lastCheckSummary: m.lastCheckSummary,
    goal: config.goal,
    judgeEnabled: config.judgeEnabled,
    ...(config.notes.length > 0 ? { warning: config.notes.join(' ') } : {}),
    createdAt: new Date(m.createdAt).toISOString(),
    updatedAt: new Date(m.updatedAt).toISOString(),
  };
}

/** A check as Firecrawl's `MonitorCheck` (credits are not counted here: billing is not applicable). */
export function checkView(c: CheckRecord): Record<string, unknown> {
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    trigger: c.trigger,
    scheduledFor: iso(c.scheduledFor),
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: null,
    billingStatus: 'not_applicable',
    summary: c.summary,
    targetResults: c.targetResults,
    notificationStatus: c.notificationStatus,
    error: c.error,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** A page of a check as Firecrawl's `MonitorCheckPage`. */
export function pageView(p: CheckPage): Record<string, unknown> {
  const d = p.detail;
  return {
    id: p.id,
    targetId: p.targetId,
    url: p.url,
    status: p.status,
    previousScrapeId: d.previousScrapeId ?? null,
    currentScrapeId: d.currentScrapeId ?? null,
    statusCode: d.statusCode ?? null,
    error: d.error ?? null,
    metadata: d.metadata ?? null,
    diff: d.diff ?? null,
    snapshot: null,
    judgment: d.judgment ?? null,
    createdAt: new Date(p.createdAt).toISOString(),
  };
}

/** Firecrawl's paging of a list: limit, offset, total, and whether more follow. */
export const pagination = (offset: number, limit: number, total: number) => ({
  limit,
  offset,
  total,
  hasMore: offset + limit < total,
});

/** The absolute URL of the next page of a check's pages, or undefined on the last. */
export function nextPageUrl(
  origin: Origin,
  monitorId: string,
  checkId: string,
  skip: number,
  limit: number,
  total: number,
  status?: string,
): string | undefined {
  if (skip + limit >= total) return undefined;
  const params = new URLSearchParams({ skip: String(skip + limit), limit: String(limit) });
  if (status) params.set('status', status);
  return `${origin.protocol}://${origin.host}/v2/monitor/${monitorId}/checks/${checkId}?${params}`;
}
