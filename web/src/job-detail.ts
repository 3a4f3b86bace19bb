import { api } from './api.js';
import { fill, h, say } from './dom.js';
import { progressOf, stateBadge } from './jobs.js';
import type { JobSummary } from './jobs.js';
import { renderMarkdown } from './markdown.js';

interface JobDocument {
  markdown?: string;
  metadata?: { sourceURL?: string; url?: string; title?: string; statusCode?: number };
}
interface CrawlStatus {
  status: string;
  total: number;
  completed: number;
  next?: string;
  data?: JobDocument[] | unknown;
  error?: string;
}
interface JobErrors {
  errors: { url: string; error: string; code?: string }[];
  robotsBlocked: string[];
}

/** One job: its progress, documents (with their Markdown), per-URL errors with reasons, and cancel. */
export function jobDetail(root: HTMLElement, id: string): () => void {
  const heading = h('h1', {}, 'Job');
  const summary = h('div', { class: 'panel' });
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const documents = h('section', { 'aria-label': 'Documents' });
  const errors = h('section', { 'aria-label': 'Errors' });
  const preview = h('section', { 'aria-label': 'Document preview' });
  fill(
    root,
    h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')),
    heading,
    summary,
    status,
    documents,
    errors,
    preview,
  );
  let timer = 0;
  let stopped = false;
  let job: JobSummary | undefined;
  const crawlLike = (): boolean => job?.kind === 'crawl' || job?.kind === 'batch_scrape';

  async function cancel(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await api(job!.statusUrl, { method: 'DELETE' });
      say(status, 'Cancelled.');
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    await refresh();
  }

  function showDocuments(docs: JobDocument[], next: string | undefined): void {
    const more = next ? h('button', { type: 'button', class: 'secondary' }, 'More documents') : null;
    more?.addEventListener('click', () => void loadMore(next!, list, more));
    const list = h('ul', { class: 'plain' }, ...docs.map(documentItem));
    fill(documents, h('h2', {}, `Documents (${docs.length}${next ? '+' : ''})`), list, more);
  }

  async function loadMore(next: string, list: HTMLUListElement, button: HTMLButtonElement): Promise<void> {
    const url = new URL(next);
    const page = await api<CrawlStatus>(url.pathname + url.search);
    list.append(...((page.data as JobDocument[]) ?? []).map(documentItem));
    if (page.next) button.onclick = () => void loadMore(page.next!, list, button);
    else button.remove();
  }

  function documentItem(doc: JobDocument): HTMLLIElement {
    const source = doc.metadata?.sourceURL ?? doc.metadata?.url ?? '';
    const view = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-label': `Show the Markdown of ${source}` },
      'Markdown',
    );
    view.addEventListener('click', () => {
      fill(
        preview,
        h('h2', {}, doc.metadata?.title || source),
        h('div', { class: 'panel rendered' }, renderMarkdown(doc.markdown ?? '')),
      );
      preview.scrollIntoView();
    });
    return h(
      'li',
      {},
      h('div', { class: 'url' }, source),
      h(
        'div',
        { class: 'row' },
        h('span', {}, `${doc.metadata?.statusCode ?? ''} ${doc.metadata?.title ?? ''}`),
        view,
      ),
    );
  }

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    try {
      const { data } = await api<{ data: JobSummary[] }>('/api/v1/jobs?limit=500');
      job = data.find((j) => j.id === id);
      if (!job) {
        fill(summary, h('p', { class: 'error' }, 'No such job (it may have expired).'));
        return;
      }
      heading.textContent = `${job.kind === 'batch_scrape' ? 'Batch scrape' : job.kind} ${job.url ?? ''}`;
      const cancelButton =
        job.state === 'scraping' && crawlLike()
          ? h('button', { type: 'button', class: 'danger' }, 'Cancel job')
          : null;
      cancelButton?.addEventListener('click', () => void cancel(cancelButton));
      fill(
        summary,
        h('div', { class: 'row' }, h('strong', {}, 'State: '), stateBadge(job.state), cancelButton),
        h(
          'div',
          { class: 'row' },
          progressOf(job),
          `${job.completed} of ${job.total} pages, ${job.pagesPerSecond.toFixed(1)} pages/s`,
        ),
        job.error ? h('p', { class: 'error' }, job.error) : null,
        h('p', { class: 'url' }, `Id ${job.id}`),
      );
      const detail = await api<CrawlStatus>(`${job.statusUrl}${crawlLike() ? '?limit=50' : ''}`);
      if (crawlLike()) {
        showDocuments((detail.data as JobDocument[]) ?? [], detail.next);
        const found = await api<JobErrors>(`${job.statusUrl}/errors`);
        fill(
          errors,
          h('h2', {}, `Errors (${found.errors.length + found.robotsBlocked.length})`),
          h(
            'ul',
            { class: 'plain' },
            ...found.errors.map((e) =>
              h(
                'li',
                {},
                h('div', { class: 'url' }, e.url),
                h('div', { class: 'error' }, `${e.code ? `${e.code}: ` : ''}${e.error}`),
              ),
            ),
            ...found.robotsBlocked.map((u) =>
              h('li', {}, h('div', { class: 'url' }, u), h('div', {}, 'Refused by robots.txt')),
            ),
          ),
        );
      } else {
        fill(
          documents,
          h('h2', {}, 'Result'),
          h('pre', { class: 'panel' }, JSON.stringify(detail.data ?? detail, null, 2)),
        );
      }
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    if (!stopped && job?.state === 'scraping') timer = window.setTimeout(() => void refresh(), 1000);
  }
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
