import { api } from './api.js';
import { fill, h, say } from './dom.js';
import { sessionsPanel } from './sessions.js';

export interface JobSummary {
  id: string;
  /** The tenant the job is for. */
  owner: string;
  kind: 'crawl' | 'batch_scrape' | 'extract' | 'llmstxt' | 'agent' | 'monitor_check';
  state: 'scraping' | 'completed' | 'failed' | 'cancelled';
  url: string | null;
  total: number;
  completed: number;
  pagesPerSecond: number;
  error: string | null;
  createdAt: string;
  statusUrl: string;
}

const KIND_NAMES: Record<JobSummary['kind'], string> = {
  crawl: 'crawl',
  batch_scrape: 'batch scrape',
  extract: 'extract',
  llmstxt: 'llms.txt',
  agent: 'agent',
  monitor_check: 'monitor check',
};

export const stateBadge = (state: string): HTMLSpanElement =>
  h('span', { class: `state-${state}`, 'data-state': state }, state);

export const progressOf = (job: { total: number; completed: number }): HTMLProgressElement =>
  h('progress', {
    max: Math.max(1, job.total),
    value: job.completed,
    'aria-label': `${job.completed} of ${job.total} pages`,
  });

/**
 * The jobs of every kind, live while any runs; a form to start a crawl; the active browser sessions. A key
 * sees its own tenant's jobs; an operator's key every tenant's, with each job's tenant and a filter by one.
 */
export function jobs(root: HTMLElement): () => void {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { 'aria-label': 'Jobs' });
  const url = h('input', {
    id: 'crawl-url',
    type: 'url',
    required: true,
    placeholder: 'https://example.com/',
  });
  const limit = h('input', { id: 'crawl-limit', type: 'number', min: 1, max: 10000, value: 20 });
  const start = h('button', { type: 'submit' }, 'Start crawl');
  const form = h(
    'form',
    {
      class: 'stack panel',
      'aria-label': 'Start a crawl',
      onsubmit: (event) => {
        event.preventDefault();
        void startCrawl();
      },
    },
    h('label', { for: 'crawl-url' }, 'Start URL'),
    url,
    h('div', { class: 'row' }, h('label', { for: 'crawl-limit' }, 'Pages at most'), limit, start),
  );
  async function startCrawl(): Promise<void> {
    start.disabled = true;
    try {
      const reply = await api<{ id: string }>('/v2/crawl', {
        method: 'POST',
        body: {
          url: url.value.trim(),
          limit: Number(limit.value) || 20,
          scrapeOptions: { formats: ['markdown'], onlyMainContent: true },
        },
      });
      say(status, `Crawl ${reply.id} started.`);
      url.value = '';
      await refresh();
    } catch (err) {
      say(status, (err as Error).message, true);
    } finally {
      start.disabled = false;
    }
  }
  let timer = 0;
  let stopped = false;
  const tenant = h('input', {
    id: 'jobs-tenant',
    type: 'text',
    pattern: '[A-Za-z0-9][A-Za-z0-9_.\\-]{0,62}',
    placeholder: 'every tenant',
  });
  const filter = h(
    'form',
    {
      class: 'row',
      'aria-label': 'Filter jobs by tenant',
      hidden: true,
      onsubmit: (event) => {
        event.preventDefault();
        void refresh();
      },
    },
    h('label', { for: 'jobs-tenant' }, 'Tenant'),
    tenant,
    h('button', { type: 'submit' }, 'Show'),
  );
  async function refresh(): Promise<void> {
    clearTimeout(timer);
    let running = false;
    try {
      const named = tenant.value.trim();
      const query = named ? `&tenant=${encodeURIComponent(named)}` : '';
      const reply = await api<{ data: JobSummary[]; caller: { admin: boolean } }>(
        `/api/v1/jobs?limit=100${query}`,
      );
      const { data, caller } = reply;
      filter.hidden = !caller.admin;
      running = data.some((j) => j.state === 'scraping');
      fill(list, data.length === 0 ? h('p', {}, 'No jobs yet.') : table(data, caller.admin));
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    // Every second while a job runs, every ten otherwise.
    if (!stopped) timer = window.setTimeout(() => void refresh(), running ? 1000 : 10_000);
  }
  const sessions = sessionsPanel();
  fill(root, h('h1', {}, 'Jobs'), form, status, filter, list, sessions.element);
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
    sessions.stop();
  };
}

/** The jobs as a table; with `tenants` (an operator's view), each job's tenant too. */
function table(data: JobSummary[], tenants: boolean): HTMLTableElement {
  const head = ['Job', ...(tenants ? ['Tenant'] : []), 'State', 'Progress', 'Pages/s', 'Started', 'Error'];
  return h(
    'table',
    { class: 'data' },
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...data.map((job) =>
        h(
          'tr',
          { 'data-job': job.id },
          h(
            'td',
            {},
            h(
              'a',
              { href: `#/jobs/${job.id}`, 'aria-label': `${KIND_NAMES[job.kind]} ${job.url ?? job.id}` },
              KIND_NAMES[job.kind],
            ),
            h('div', { class: 'url' }, job.url ?? ''),
          ),
          tenants && h('td', { 'data-tenant': job.owner }, job.owner),
          h('td', {}, stateBadge(job.state)),
          h('td', {}, progressOf(job), ` ${job.completed}/${job.total}`),
          h('td', {}, job.pagesPerSecond.toFixed(1)),
          h('td', {}, new Date(job.createdAt).toLocaleTimeString()),
          h('td', { class: 'error' }, job.error ?? ''),
        ),
      ),
    ),
  );
}
