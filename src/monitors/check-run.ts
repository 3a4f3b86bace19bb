import { randomUUID } from 'node:crypto';
import { callerFor, ownerOf } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import { normalizeUrl } from '../crawl/normalize.js';
import { toAppError } from '../errors.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import type { JobManager } from '../jobs/job-manager.js';
import type {
  CheckPage,
  CheckRecord,
  CheckSummary,
  MonitorStore,
} from '../jobs/stores/monitor-state/monitor-store.js';
import type { WebhookSender } from '../jobs/webhooks.js';
import { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import { mapWithLimit } from '../lib/map-limit.js';
import { comparedMarkdown } from '../content/markdown-diff.js';
import { isGone } from '../operations/change-tracking.js';
import type { Services } from '../operations/services.js';
import type { PageDocument } from '../schemas/page.js';
import { judgeChange } from './judge.js';
import type { CheckTarget, MonitorConfig } from './monitor-config.js';
import { snapshotKey } from './monitor-config.js';
import { updateMonitor } from '../jobs/stores/monitor-state/monitor-store.js';

export interface CheckDeps {
  store: MonitorStore;
  jobs: Pick<JobManager, 'attachCrawl'>;
  services: Pick<Services, 'searchPages'>;
  /** The server's LLM for the judge; null without one. */
  llm: { client: LlmClient; endpoint: LlmEndpoint } | null;
  webhooks: WebhookSender;
  /** A unified diff of two versions of a page (the content workers); null when it was given up. */
  diff: (previous: string, current: string) => Promise<string | null>;
  log: Logger;
}

/** Pages of one check the judge reads at most (the others carry no judgment, and the check says so). */
const MAX_JUDGED = 25;
/** Checks a monitor keeps at most, the newest (retentionDays purges older ones first). */
const MAX_CHECKS = 10_000;
const JUDGE_CONCURRENCY = 4;
const JUDGE_TIMEOUT_MS = 60_000;
/** Characters of a new page the judge is given (it reads 20,000 characters of a diff). */
const JUDGED_CHARS = 20_000;
const DAY_MS = 86_400_000;

/** What a target's fetch gave for one URL: the page, or why there is none. */
type Fetched = { url: string; doc?: PageDocument; error?: string; statusCode?: number };

/**
 * A page seen gone (removed) keeps a version with no scrape: a scrape target's page still answering 404 is then
 * the same as last time, and a page coming back is new again.
 */
const GONE = '';
const isTombstone = (s: { scrapeId: string } | null): boolean => s !== null && s.scrapeId === GONE;

/** A summary of no pages. */
export const emptySummary = (): CheckSummary => ({
  totalPages: 0,
  same: 0,
  changed: 0,
  new: 0,
  removed: 0,
  error: 0,
});

/** Fetches a target's pages: through the crawl engine (batch or crawl), or each search result's page. */
async function fetchTarget(
  target: CheckTarget,
  signal: AbortSignal,
  deps: CheckDeps,
  caller: Caller,
): Promise<Fetched[]> {
  const out: Fetched[] = [];
  if (target.type === 'pages') {
    await deps.jobs.attachCrawl(
      target.spec,
      {
        document: (item, doc) => {
          out.push({ url: item.url, doc: { ...doc, html: undefined, rawHtml: undefined } });
          return Promise.resolve();
        },
        failed: (url, error) => {
          out.push({ url, error: error.message });
          return Promise.resolve();
        },
        robotsBlocked: (url) => {
          out.push({ url, error: 'robots.txt disallows this page' });
          return Promise.resolve();
        },
      },
      signal,
      caller,
    );
    return out;
  }
  const seen = new Set<string>();
  for (const query of target.queries) {
    const results = await deps.services.searchPages(query, target.maxResults, target.page, signal, caller);
    for (const r of results) {
      const host = hostOf(r.hit.url);
      if (target.includeDomains.length > 0 && !target.includeDomains.some((d) => onDomain(host, d))) continue;
      if (target.excludeDomains.some((d) => onDomain(host, d))) continue;
      if (seen.has(r.hit.url)) continue;
      seen.add(r.hit.url);
      out.push(
        r.document
          ? { url: r.hit.url, doc: r.document }
          : { url: r.hit.url, error: r.error?.message ?? 'not read' },
      );
    }
  }
  return out;
}

/** A target's kind as Firecrawl's targetResults name it. */
const resultType = (target: CheckTarget): 'scrape' | 'crawl' | 'search' =>
  target.type === 'search' ? 'search' : target.spec.follow ? 'crawl' : 'scrape';

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
};
const onDomain = (host: string, domain: string): boolean => {
  const d = domain.toLowerCase().replace(/^\*?\.?/, '');
  return host === d || host.endsWith(`.${d}`);
};

/**
 * One check of a monitor (the monitor_check job's run): fetches every target, compares each page with its
 * retained version (new, same, changed with the diff, removed, error), asks the judge about the changes when
 * the monitor has a goal, stores the pages and the summary, keeps the new versions, then sends the webhooks and
 * purges checks past `retentionDays`. A check whose monitor is gone, or that already ended, does nothing; one
 * whose monitor is deleted while it runs keeps nothing.
 */
export async function runCheck(
  monitorId: string,
  checkId: string,
  signal: AbortSignal,
  deps: CheckDeps,
): Promise<void> {
  const { store } = deps;
  const monitor = await store.get(monitorId);
  let check = await store.check(monitorId, checkId);
  if (!monitor || !check || !['queued', 'running'].includes(check.status)) return;
  const config = monitor.config as unknown as MonitorConfig;
  const startedAt = Date.now();
  check = { ...check, status: 'running', startedAt, updatedAt: startedAt };
  await store.putCheck(check);
  const pages: CheckPage[] = [];
  const targetResults: unknown[] = [];
  const kept: { key: string; markdown: string; scrapeId: string }[] = [];
  const dropped: string[] = [];
  /** A new page's Markdown, for the judge (it has no diff). */
  const newContent = new Map<CheckPage, string>();
  /** Tombstones of pages not seen for retentionDays: nothing compares with them any more. */
  const expired: string[] = [];
  const retainedFrom = startedAt - monitor.retentionDays * DAY_MS;
  let failure: string | null = null;
  for (const target of config.targets) {
    let fetched: Fetched[];
    try {
      fetched = await fetchTarget(target, signal, deps, callerFor(ownerOf(monitor)));
    } catch (err) {
      if (signal.aborted) throw err;
      failure = `target ${target.id}: ${toAppError(err).message}`;
      targetResults.push({ targetId: target.id, type: resultType(target), error: failure });
      continue;
    }
    const found = new Set<string>();
    for (const f of fetched) {
      const url = normalizeUrl(f.url) ?? f.url;
      const key = snapshotKey(target.id, url);
      found.add(key);
      const stored = await store.snapshot(monitorId, key);
      const previous = isTombstone(stored) ? null : stored;
      const page = (status: CheckPage['status'], detail: Record<string, unknown>): CheckPage => ({
        id: randomUUID(),
        checkId,
        targetId: target.id,
        url,
        status,
        detail: { previousScrapeId: previous?.scrapeId ?? null, ...detail },
        createdAt: Date.now(),
      });
      if (!f.doc) {
        pages.push(page('error', { error: f.error ?? 'failed', statusCode: f.statusCode ?? null }));
        continue;
      }
      const statusCode = f.doc.metadata.statusCode;
      const metadata = { title: f.doc.metadata.title, statusCode };
      if (isGone(statusCode)) {
        if (previous) {
          pages.push(
            page('removed', { statusCode, metadata, diff: await diffOf(previous.markdown, '', deps) }),
          );
          dropped.push(key);
        } else if (isTombstone(stored)) pages.push(page('same', { statusCode, metadata, diff: null }));
        else pages.push(page('error', { statusCode, metadata, error: `HTTP ${statusCode}` }));
        continue;
      }
      const markdown = comparedMarkdown(f.doc.markdown);
      const scrapeId = randomUUID();
      const base = { statusCode, metadata, currentScrapeId: scrapeId };
      if (!previous) {
        const added = page('new', { ...base, diff: null });
        pages.push(added);
        newContent.set(added, markdown);
      } else if (previous.markdown === markdown) pages.push(page('same', { ...base, diff: null }));
      else pages.push(page('changed', { ...base, diff: await diffOf(previous.markdown, markdown, deps) }));
      kept.push({ key, markdown, scrapeId });
    }
    // Pages retained from earlier checks that this one did not find (crawls and searches): removed.
    for (const key of await store.snapshotKeys(monitorId, `${target.id}|`)) {
      if (found.has(key)) continue;
      const previous = await store.snapshot(monitorId, key);
      if (isTombstone(previous)) {
        if (previous!.at < retainedFrom) expired.push(key);
        continue;
      }
      pages.push({
        id: randomUUID(),
        checkId,
        targetId: target.id,
        url: key.slice(target.id.length + 1),
        status: 'removed',
        detail: {
          previousScrapeId: previous?.scrapeId ?? null,
          diff: previous ? await diffOf(previous.markdown, '', deps) : null,
        },
        createdAt: Date.now(),
      });
      dropped.push(key);
    }
    targetResults.push({ targetId: target.id, type: resultType(target), pages: fetched.length });
  }
  if (signal.aborted) throw signal.reason;
  // Deleted while it ran: nothing of it is kept, nothing is judged.
  if (!(await store.get(monitorId))) return;
  const judgeNote = await judge(config, pages, newContent, signal, deps);
  const summary = emptySummary();
  for (const p of pages) {
    summary.totalPages++;
    summary[p.status]++;
  }
  // A check resumed after a crash that had written its pages (all or none: addPages is atomic) keeps them once.
  if ((await store.pages(checkId, 0, 1)).total === 0) await store.addPages(checkId, pages);
  for (const k of kept)
    await store.putSnapshot(monitorId, k.key, { markdown: k.markdown, scrapeId: k.scrapeId, at: Date.now() });
  for (const key of dropped)
    await store.putSnapshot(monitorId, key, { markdown: '', scrapeId: GONE, at: Date.now() });
  for (const key of expired) await store.deleteSnapshot(monitorId, key);
  const finishedAt = Date.now();
  const status: CheckRecord['status'] =
    failure !== null && summary.totalPages === 0
      ? 'failed'
      : failure !== null || summary.error > 0
        ? summary.error === summary.totalPages && summary.totalPages > 0
          ? 'failed'
          : 'partial'
        : 'completed';
  const notes = [...config.notes, ...(judgeNote ? [judgeNote] : [])];
  check = {
    ...check,
    status,
    finishedAt,
    summary,
    targetResults,
    notificationStatus: {
      // Written before delivery, which is retried and may still fail: queued, not sent.
      webhook: config.webhook ? 'queued' : 'none',
      ...(notes.length > 0 ? { notes } : {}),
    },
    error: failure,
    updatedAt: finishedAt,
  };
  await store.putCheck(check);
  // Only this check's fields: a PATCH landing meanwhile keeps its own.
  const updated = await updateMonitor(store, monitorId, (now) => ({
    lastRunAt: startedAt,
    lastCheckSummary: summary,
    currentCheckId: now.currentCheckId === checkId ? null : now.currentCheckId,
    updatedAt: finishedAt,
  }));
  if (!updated) {
    // Deleted while the results were written: they go too.
    await store.delete(monitorId);
    return;
  }
  notify(config, monitor.id, check, pages, deps);
  // Past retentionDays, and past the newest MAX_CHECKS (a 1-second schedule would keep millions of checks).
  const oldestKept = (await store.checks(monitorId, MAX_CHECKS - 1, 1)).checks[0];
  const before = Math.max(finishedAt - monitor.retentionDays * DAY_MS, oldestKept?.createdAt ?? 0);
  const purged = await store.purgeChecks(monitorId, before);
  if (purged > 0)
    deps.log.info({ monitorId, purged }, 'monitor checks past retentionDays or MAX_CHECKS purged');
}

/** Characters of a diff a page keeps (stored, answered, sent in monitor.page); the rest is cut and said. */
const MAX_DIFF_CHARS = 100_000;

async function diffOf(previous: string, current: string, deps: CheckDeps): Promise<{ text: string } | null> {
  const text = await deps.diff(previous, current);
  if (text === null) return null;
  return {
    text:
      text.length > MAX_DIFF_CHARS
        ? `${text.slice(0, MAX_DIFF_CHARS)}\n[diff cut at ${MAX_DIFF_CHARS} characters]\n`
        : text,
  };
}

/** A new page's Markdown as the diff that adds it (bounded as the judge reads it), or undefined without one. */
const addedLines = (markdown: string | undefined): string | undefined =>
  markdown
    ? markdown
        .slice(0, JUDGED_CHARS)
        .split('\n')
        .map((line) => `+${line}`)
        .join('\n')
    : undefined;

/** Judges the changed, new and removed pages against the goal (when asked); answers a note when some were not. */
async function judge(
  config: MonitorConfig,
  pages: CheckPage[],
  newContent: Map<CheckPage, string>,
  signal: AbortSignal,
  deps: CheckDeps,
): Promise<string | null> {
  if (!config.goal || !config.judgeEnabled || !deps.llm) return null;
  const llm = deps.llm;
  const goal = config.goal;
  const moved = pages.filter((p) => p.status === 'changed' || p.status === 'new' || p.status === 'removed');
  const judged = moved.slice(0, MAX_JUDGED);
  await mapWithLimit(judged, JUDGE_CONCURRENCY, async (p) => {
    const deadline = Deadline.after(JUDGE_TIMEOUT_MS, signal);
    try {
      const diff =
        (p.detail.diff as { text?: string } | null)?.text ??
        addedLines(newContent.get(p)) ??
        `(${p.status} page)`;
      const { judgment, error } = await judgeChange(
        goal,
        { url: p.url, status: p.status, diff },
        { llm: llm.client, endpoint: llm.endpoint, deadline },
      );
      p.detail.judgment = judgment;
      if (error) {
        p.detail.judgeError = error;
        deps.log.warn({ op: 'monitor-judge', url: p.url, reason: error }, 'change not judged');
      }
    } finally {
      deadline.dispose();
    }
  });
  return moved.length > judged.length
    ? `the judge read the first ${MAX_JUDGED} of ${moved.length} changed pages`
    : null;
}

/** monitor.page for every page that is not the same, then monitor.check.completed. */
function notify(
  config: MonitorConfig,
  monitorId: string,
  check: CheckRecord,
  pages: CheckPage[],
  deps: CheckDeps,
): void {
  const target = config.webhook;
  if (!target) return;
  const base = { monitorId, checkId: check.id, metadata: target.metadata };
  for (const p of pages) {
    if (p.status === 'same') continue;
    deps.webhooks.send(check.id, target, 'monitor.page', {
      success: true,
      type: 'monitor.page',
      ...base,
      data: { url: p.url, targetId: p.targetId, status: p.status, ...p.detail },
    });
  }
  deps.webhooks.send(check.id, target, 'monitor.check.completed', {
    success: check.status !== 'failed',
    type: 'monitor.check.completed',
    ...base,
    data: { status: check.status, summary: check.summary, ...(check.error ? { error: check.error } : {}) },
  });
}
