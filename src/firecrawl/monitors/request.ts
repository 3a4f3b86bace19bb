import { compileSchema, describeViolations } from '../../extract/schema.js';
import type { WebhookTarget } from '../../jobs/webhooks.js';
import type { CheckTarget, MonitorConfig } from '../../monitors/monitor-config.js';
import type { MonitorInput } from '../../monitors/monitors.js';
import { normalizeSchedule } from '../../monitors/schedule.js';
import type { FirecrawlDeps } from '../deps.js';
import { batchSpecOf, crawlSpecOf, webhookOf } from '../options.js';
import { refuse } from '../page-options.js';
import { FcBatchBody, FcCrawlV2Body } from '../schemas/jobs.js';
import type { FcMonitorCreateBody, FcMonitorUpdateBody } from '../schemas/monitor.js';

/** Pages a crawl target reads per check when its crawlOptions set no limit, and at most. */
const CRAWL_TARGET_LIMIT = 50;
const CRAWL_TARGET_MAX = 500;
const SEARCH_MAX_RESULTS = 50;
/** Pages one check may read across its targets (URLs, crawl limits, queries × results): bounds its memory and time. */
const MAX_CHECK_PAGES = 1000;
/** A batch's own fields: the target's scrapeOptions are checked as a batch's body, where these would pass. */
const BATCH_FIELDS = ['urls', 'webhook', 'appendToId', 'ignoreInvalidURLs', 'maxConcurrency'];
/** Days a check is kept when the monitor does not say (Firecrawl's default). */
export const DEFAULT_RETENTION_DAYS = 30;

const checkBatch = compileSchema(FcBatchBody as unknown as Record<string, unknown>);
const checkCrawl = compileSchema(FcCrawlV2Body as unknown as Record<string, unknown>);

/** A body part checked against one of Firecrawl's job schemas, its first violation a 400 naming the field. */
function checked(validate: ReturnType<typeof compileSchema>, value: unknown, field: string): void {
  if (!validate(value)) refuse(field, describeViolations(validate.errors).slice(0, 3).join('; '));
}

/** An object-valued field (absent: empty); anything else a 400 naming it. */
function objectAt(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) refuse(field, 'must be an object');
  return value as Record<string, unknown>;
}

/** Monitors compare the page's Markdown: formats beyond it (LLM formats, screenshots...) are refused. */
function markdownOnly(scrapeOptions: unknown, field: string): Record<string, unknown> {
  const options = objectAt(scrapeOptions, field);
  for (const key of BATCH_FIELDS) if (key in options) refuse(`${field}.${key}`, 'not a scrape option');
  const formats = options.formats ?? [];
  if (!Array.isArray(formats)) refuse(`${field}.formats`, 'must be an array');
  for (const [i, f] of formats.entries()) {
    const type = typeof f === 'string' ? f : (f as { type?: unknown } | null)?.type;
    if (type !== 'markdown' && type !== 'changeTracking')
      refuse(
        `${field}.formats[${i}]`,
        'a monitor compares the page\'s Markdown: only "markdown" (and "changeTracking") apply',
      );
    if (type === 'changeTracking' && typeof f === 'object' && f && 'modes' in f) {
      const modes = (f as { modes?: unknown }).modes;
      if (Array.isArray(modes) && modes.some((m) => m !== 'git-diff'))
        refuse(
          `${field}.formats[${i}].modes`,
          'monitors compare with git-diff on this server (the json mode is not served)',
        );
    }
  }
  const { formats: _f, ...rest } = options;
  return { ...rest, formats: ['markdown'] };
}

/** One of Firecrawl's monitor targets as the check it runs; its id kept (or given). */
function targetOf(raw: Record<string, unknown>, i: number, fc: FirecrawlDeps, notes: string[]): CheckTarget {
  const field = `targets[${i}]`;
  const id = typeof raw.id === 'string' && raw.id ? raw.id.slice(0, 100) : `t${i + 1}`;
  const allowed = (keys: string[]) => {
    for (const key of Object.keys(raw)) if (!keys.includes(key)) refuse(`${field}.${key}`, 'unknown field');
  };
  if (raw.type === 'scrape') {
    allowed(['id', 'type', 'urls', 'scrapeOptions']);
    const body = { urls: raw.urls, ...markdownOnly(raw.scrapeOptions, `${field}.scrapeOptions`) };
    checked(checkBatch, body, field);
    const { spec } = batchSpecOf(body as FcBatchBody, 'v2', fc.settings, fc.capabilities);
    if (spec.seeds.length > 100) refuse(`${field}.urls`, 'at most 100 URLs per target');
    return { id, type: 'pages', spec };
  }
  if (raw.type === 'crawl') {
    allowed(['id', 'type', 'url', 'crawlOptions', 'scrapeOptions']);
    const crawlOptions = objectAt(raw.crawlOptions, `${field}.crawlOptions`);
    if ('prompt' in crawlOptions)
      refuse(`${field}.crawlOptions.prompt`, 'set the crawl fields of a monitor explicitly');
    if ('webhook' in crawlOptions) refuse(`${field}.crawlOptions.webhook`, "use the monitor's webhook");
    if ('url' in crawlOptions)
      refuse(`${field}.crawlOptions.url`, "the target's url is where the crawl starts");
    const limit = crawlOptions.limit ?? CRAWL_TARGET_LIMIT;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > CRAWL_TARGET_MAX)
      refuse(`${field}.crawlOptions.limit`, `must be an integer from 1 to ${CRAWL_TARGET_MAX} for a monitor`);
    const body = {
      url: raw.url,
      ...crawlOptions,
      limit,
      scrapeOptions: markdownOnly(raw.scrapeOptions, `${field}.scrapeOptions`),
    };
    checked(checkCrawl, body, field);
    const { spec } = crawlSpecOf(body as FcCrawlV2Body, 'v2', fc.settings, fc.capabilities);
    return { id, type: 'pages', spec };
  }
  if (raw.type === 'search') {
    allowed(['id', 'type', 'queries', 'searchWindow', 'includeDomains', 'excludeDomains', 'maxResults']);
    const queries = raw.queries;
    if (
      !Array.isArray(queries) ||
      queries.length === 0 ||
      queries.length > 10 ||
      queries.some((q) => typeof q !== 'string' || !q.trim() || q.length > 500)
    )
      refuse(`${field}.queries`, 'must be 1 to 10 non-empty queries of at most 500 characters');
    const domains = (key: string): string[] => {
      const v = raw[key];
      if (v === undefined) return [];
      if (!Array.isArray(v) || v.length > 100 || v.some((d) => typeof d !== 'string' || d.length > 253))
        refuse(`${field}.${key}`, 'must be at most 100 domain names');
      return v as string[];
    };
    const max = raw.maxResults ?? 10;
    if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > SEARCH_MAX_RESULTS)
      refuse(`${field}.maxResults`, `must be an integer from 1 to ${SEARCH_MAX_RESULTS}`);
    if (raw.searchWindow !== undefined) {
      if (!['5m', '15m', '1h', '6h', '24h', '7d'].includes(raw.searchWindow as string))
        refuse(`${field}.searchWindow`, 'must be 5m, 15m, 1h, 6h, 24h or 7d');
      notes.push(
        `${field}.searchWindow: the search provider is not asked for a time window; every result is compared`,
      );
    }
    return {
      id,
      type: 'search',
      queries: (queries as string[]).map((q) => q.trim()),
      maxResults: max as number,
      includeDomains: domains('includeDomains'),
      excludeDomains: domains('excludeDomains'),
      page: { formats: ['markdown'], onlyMainContent: true },
    };
  }
  return refuse(`${field}.type`, 'must be "scrape", "crawl" or "search"');
}

/** The monitor's webhook: events by their short names (`monitor.page` → `page`), both when none are named. */
function monitorWebhook(webhook: FcMonitorCreateBody['webhook']): WebhookTarget | null {
  if (!webhook) return null;
  const target = webhookOf({ url: webhook.url, headers: webhook.headers, metadata: webhook.metadata });
  const events = (webhook.events ?? ['monitor.page', 'monitor.check.completed']).map((e) =>
    e.replace(/^monitor\./, ''),
  );
  return target && { ...target, events: [...new Set(events)] };
}

/** What the monitor cannot do here, reported in its answers and with every check. */
function notificationNotes(notification: FcMonitorCreateBody['notification'] | null | undefined): string[] {
  return notification?.email?.enabled === false || !notification?.email
    ? []
    : ['notification.email: this server sends no email (no SMTP is configured); use the webhook'];
}

/** POST /v2/monitor's body as the monitor to create. */
export async function monitorInputOf(
  body: FcMonitorCreateBody,
  fc: FirecrawlDeps,
  owner: string,
): Promise<MonitorInput> {
  const { cron, timezone } = normalizeSchedule(
    body.schedule,
    'schedule',
    fc.monitors.minIntervalSeconds(owner),
  );
  const notes = notificationNotes(body.notification);
  const targets = body.targets.map((t, i) => targetOf(t as Record<string, unknown>, i, fc, notes));
  const ids = targets.map((t) => t.id);
  if (new Set(ids).size !== ids.length) refuse('targets', 'target ids must be unique');
  const pages = targets.reduce(
    (n, t) =>
      n +
      (t.type === 'pages' ? Math.max(t.spec.limit, t.spec.seeds.length) : t.queries.length * t.maxResults),
    0,
  );
  if (pages > MAX_CHECK_PAGES) {
    refuse(
      'targets',
      `a check reads at most ${MAX_CHECK_PAGES} pages across its targets; these may read ${pages}`,
    );
  }
  if (body.judgeEnabled && !body.goal) refuse('judgeEnabled', 'the judge needs a goal');
  if (body.judgeEnabled && !fc.serverLlm)
    refuse('judgeEnabled', "the judge needs the server's LLM (set OPENAI_BASE_URL)");
  const webhook = monitorWebhook(body.webhook);
  if (webhook) await fc.services.jobs.webhooks.check(webhook);
  const config: MonitorConfig = {
    targets,
    goal: body.goal ?? null,
    judgeEnabled: body.judgeEnabled ?? false,
    webhook,
    notes,
    surface: {
      schedule: { ...body.schedule, cron, timezone },
      targets: body.targets.map((t, i) => ({ ...t, id: ids[i] })),
      webhook: body.webhook ?? null,
      notification: body.notification ?? null,
    },
  };
  return {
    name: body.name,
    status: body.status ?? 'active',
    cron,
    timezone,
    retentionDays: body.retentionDays ?? DEFAULT_RETENTION_DAYS,
    config,
  };
}

/** PATCH /v2/monitor/{id}: the fields given replace the stored ones (null clears webhook, notification, goal). */
export async function updatedInput(
  current: MonitorInput,
  patch: FcMonitorUpdateBody,
  fc: FirecrawlDeps,
  owner: string,
): Promise<MonitorInput> {
  const surface = current.config.surface as {
    schedule: FcMonitorCreateBody['schedule'];
    targets: Record<string, unknown>[];
    webhook: FcMonitorCreateBody['webhook'] | null;
    notification: FcMonitorCreateBody['notification'] | null;
  };
  // A schedule of only a time zone keeps the stored cron or text.
  const given = patch.schedule ?? {};
  const schedule =
    given.cron === undefined && given.text === undefined
      ? {
          ...(surface.schedule.text ? { text: surface.schedule.text } : { cron: current.cron }),
          timezone: given.timezone ?? current.timezone,
        }
      : given;
  const merged: FcMonitorCreateBody = {
    name: patch.name ?? current.name,
    status: patch.status ?? current.status,
    schedule: { cron: schedule.cron, text: schedule.text, timezone: schedule.timezone ?? current.timezone },
    targets: patch.targets ?? surface.targets,
    retentionDays: patch.retentionDays ?? current.retentionDays,
    judgeEnabled: patch.judgeEnabled ?? current.config.judgeEnabled,
    ...((patch.goal === undefined ? current.config.goal : patch.goal)
      ? { goal: (patch.goal === undefined ? current.config.goal : patch.goal)! }
      : {}),
    ...((patch.webhook === undefined ? surface.webhook : patch.webhook)
      ? { webhook: (patch.webhook === undefined ? surface.webhook : patch.webhook)! }
      : {}),
    ...((patch.notification === undefined ? surface.notification : patch.notification)
      ? { notification: (patch.notification === undefined ? surface.notification : patch.notification)! }
      : {}),
  };
  if (!merged.schedule.cron) delete merged.schedule.cron;
  if (!merged.schedule.text) delete merged.schedule.text;
  return monitorInputOf(merged, fc, owner);
}
