import type { JobRecord } from '../jobs/stores/job-store.js';
import type { JobSummary, ServiceStatus } from '../schemas/operator.js';
import type { Services } from './services.js';
import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';

/** Where each kind of job is read through the Firecrawl routes (documents, result, errors). */
const STATUS_PATH: Record<JobRecord['kind'], string> = {
  crawl: '/v2/crawl/',
  batch_scrape: '/v2/batch/scrape/',
  extract: '/v2/extract/',
  llmstxt: '/v1/llmstxt/',
  agent: '/v2/agent/',
  monitor_check: '/v2/monitor/',
};

/** The URL a job is about, whatever its kind's request looks like. */
function targetOf(request: unknown): string | null {
  const r = (request ?? {}) as {
    spec?: { seeds?: unknown[] };
    url?: unknown;
    urls?: unknown[];
    prompt?: unknown;
  };
  // An agent run without seed URLs is about its prompt.
  const candidate = r.spec?.seeds?.[0] ?? r.url ?? r.urls?.[0] ?? r.prompt;
  return typeof candidate === 'string' ? candidate : null;
}

export function jobSummary(job: JobRecord, now = Date.now()): JobSummary {
  const end = job.state === 'scraping' ? now : job.updatedAt;
  const seconds = Math.max(0.001, (end - job.createdAt) / 1000);
  return {
    id: job.id,
    owner: job.owner,
    kind: job.kind,
    state: job.state,
    url: targetOf(job.request),
    total: job.total,
    completed: job.completed,
    pagesPerSecond: Math.round((job.completed / seconds) * 100) / 100,
    error: job.error,
    createdAt: new Date(job.createdAt).toISOString(),
    updatedAt: new Date(job.updatedAt).toISOString(),
    // A check is read under its monitor: /v2/monitor/{monitorId}/checks/{checkId} (the job's id is the check's).
    statusUrl:
      job.kind === 'monitor_check'
        ? `${STATUS_PATH.monitor_check}${(job.request as { monitorId: string }).monitorId}/checks/${job.id}`
        : STATUS_PATH[job.kind] + job.id,
  };
}

/** The newest jobs `caller` may see: its tenant's; an operator's, those of `tenant` or every tenant's. */
export async function recentJobs(
  services: Services,
  limit: number,
  caller: Caller,
  tenant?: string,
): Promise<JobSummary[]> {
  const now = Date.now();
  const owner = listedOwner(caller, tenant);
  return (await services.jobs.recent(limit, owner === undefined ? {} : { owner })).map((job) =>
    jobSummary(job, now),
  );
}

const started = Date.now();

/** Workers, queue, content workers, browser pool and Redis, read now. */
export async function serviceStatus(services: Services): Promise<ServiceStatus> {
  const [problem, workers, queue] = await Promise.all([
    services.health(),
    services.jobs.workers().catch(() => 0),
    services.jobs
      .queueStatus()
      .catch(() => ({ active: 0, waiting: 0, maxConcurrency: 0, mostRecentSuccess: null })),
  ]);
  const distributed = workers !== null;
  return {
    mode: distributed ? 'distributed' : 'embedded',
    problem,
    uptimeSeconds: Math.round((Date.now() - started) / 1000),
    workers,
    queue,
    content: services.contentStats(),
    browser: services.browserStats(),
    redis: distributed ? (problem ?? 'ok') : null,
    proxies: services.proxyStatus(),
  };
}
