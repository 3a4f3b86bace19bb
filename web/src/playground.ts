import { api, curlOf } from './api.js';
import { copyText, fill, h, say } from './dom.js';
import { renderMarkdown } from './markdown.js';

interface ScrapeReply {
  data: {
    markdown?: string;
    links?: string[];
    screenshot?: string;
    metadata: Record<string, unknown>;
  };
}

const FORMATS = ['markdown', 'html', 'links', 'images', 'screenshot'] as const;

/** Try a URL and see what comes out: Markdown rendered and raw, metadata, links, screenshot, as curl. */
export function playground(root: HTMLElement): () => void {
  const url = h('input', {
    id: 'pg-url',
    type: 'url',
    required: true,
    placeholder: 'https://example.com/article',
  });
  const engine = h(
    'select',
    { id: 'pg-engine' },
    ...['auto', 'http', 'browser'].map((e) => h('option', { value: e }, e)),
  );
  const formatBoxes = FORMATS.map((f) =>
    h('input', {
      type: 'checkbox',
      id: `pg-format-${f}`,
      value: f,
      checked: f === 'markdown' || f === 'links',
    }),
  );
  const onlyMain = h('input', { type: 'checkbox', id: 'pg-main', checked: true });
  const submit = h('button', { type: 'submit' }, 'Scrape');
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const result = h('section', { 'aria-label': 'Result' });
  const body = (): Record<string, unknown> => ({
    url: url.value.trim(),
    engine: engine.value,
    formats: formatBoxes.filter((b) => b.checked).map((b) => b.value),
    onlyMainContent: onlyMain.checked,
  });
  const form = h(
    'form',
    {
      class: 'stack',
      'aria-label': 'Scrape a page',
      onsubmit: (event) => {
        event.preventDefault();
        void run();
      },
    },
    h('label', { for: 'pg-url' }, 'URL'),
    url,
    h(
      'div',
      { class: 'row' },
      h('label', { for: 'pg-engine' }, 'Engine'),
      engine,
      h('label', {}, onlyMain, ' onlyMainContent'),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Formats'),
      ...formatBoxes.map((box) => h('label', {}, box, ` ${box.value}`)),
    ),
    h('div', { class: 'row' }, submit),
  );
  async function run(): Promise<void> {
    const request = body();
    submit.disabled = true;
    say(status, 'Scraping…');
    fill(result);
    try {
      const started = performance.now();
      const reply = await api<ScrapeReply>('/api/v1/scrape', { method: 'POST', body: request });
      status.textContent = `Done in ${Math.round(performance.now() - started)} ms.`;
      show(reply.data, request);
    } catch (err) {
      say(status, (err as Error).message, true);
    } finally {
      submit.disabled = false;
    }
  }
  function show(data: ScrapeReply['data'], request: Record<string, unknown>): void {
    const markdown = data.markdown ?? '';
    const views: [string, Node][] = [
      [
        'Rendered',
        h('div', { class: 'panel rendered', 'data-testid': 'rendered' }, renderMarkdown(markdown)),
      ],
      ['Markdown', h('pre', { class: 'panel', 'data-testid': 'raw' }, markdown)],
      ['Metadata', h('pre', { class: 'panel' }, JSON.stringify(data.metadata, null, 2))],
      [
        `Links (${data.links?.length ?? 0})`,
        h('ul', { class: 'plain panel' }, ...(data.links ?? []).map((l) => h('li', { class: 'url' }, l))),
      ],
    ];
    if (data.screenshot) {
      views.push([
        'Screenshot',
        h('img', { class: 'screenshot', src: data.screenshot, alt: 'Screenshot of the page' }),
      ]);
    }
    const curl = curlOf('/api/v1/scrape', request);
    views.push(['curl', h('pre', { class: 'panel', 'data-testid': 'curl' }, curl)]);
    const panel = h('div', { role: 'tabpanel', id: 'pg-panel' });
    const tabs = views.map(([name, content], index) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          'aria-selected': index === 0 ? 'true' : 'false',
          'aria-controls': 'pg-panel',
          onclick: (event) => {
            for (const t of tabs) t.setAttribute('aria-selected', String(t === event.currentTarget));
            fill(panel, content);
          },
        },
        name,
      ),
    );
    fill(panel, views[0]![1]);
    const copyMarkdown = h('button', { type: 'button', class: 'secondary' }, 'Copy Markdown');
    copyMarkdown.addEventListener('click', () => void copyText(markdown, copyMarkdown));
    const copyCurl = h('button', { type: 'button', class: 'secondary' }, 'Copy curl');
    copyCurl.addEventListener('click', () => void copyText(curl, copyCurl));
    fill(
      result,
      h('div', { class: 'row' }, copyMarkdown, copyCurl),
      h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Result views' }, ...tabs),
      panel,
    );
  }
  fill(root, h('h1', {}, 'Playground'), form, status, result);
  url.focus();
  return () => undefined;
}
