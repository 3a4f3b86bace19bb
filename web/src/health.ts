import { api } from './api.js';
import { fill, h, say } from './dom.js';

interface Status {
  mode: string;
  problem: string | null;
  uptimeSeconds: number;
  workers: number | null;
  queue: { active: number; waiting: number; maxConcurrency: number; mostRecentSuccess: string | null };
  content: { threads: number; queued: number; inFlight: number; stopped: number };
  browser: { active: number; max: number; launches: number } | null;
  redis: string | null;
}

/** A titled panel of the health view. */
const card = (title: string, content: Node): HTMLElement =>
  h('section', { class: 'panel', 'aria-label': title }, h('h2', {}, title), content);

const facts = (pairs: [string, string][]): HTMLDListElement =>
  h('dl', { class: 'facts' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

/** Workers, queue depth, content workers, browser pool and Redis, refreshed every few seconds. */
export function health(root: HTMLElement): () => void {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const cards = h('div', { class: 'cards' });
  fill(root, h('h1', {}, 'Health'), status, cards);
  let timer = 0;
  const refresh = async (): Promise<void> => {
    try {
      const s = await api<Status>('/api/v1/status');
      status.className = s.problem ? 'status error' : 'status';
      status.textContent = s.problem ? `Unhealthy: ${s.problem}` : `Healthy, up ${s.uptimeSeconds} s.`;
      fill(
        cards,
        card(
          'Service',
          facts([
            ['Mode', s.mode],
            ['Worker processes', s.workers === null ? 'this process' : String(s.workers)],
            ['Redis', s.redis ?? 'not used (embedded)'],
          ]),
        ),
        card(
          'Job queue',
          facts([
            ['Running', String(s.queue.active)],
            ['Waiting', String(s.queue.waiting)],
            ['At once at most', String(s.queue.maxConcurrency)],
            [
              'Last completed',
              s.queue.mostRecentSuccess
                ? new Date(s.queue.mostRecentSuccess).toLocaleTimeString()
                : 'none yet',
            ],
          ]),
        ),
        card(
          'Content workers',
          facts([
            ['Threads', String(s.content.threads)],
            ['Tasks running', String(s.content.inFlight)],
            ['Tasks queued', String(s.content.queued)],
            ['Stopped for overrunning', String(s.content.stopped)],
          ]),
        ),
        card(
          'Browser pool',
          s.browser
            ? facts([
                ['Pages open', `${s.browser.active} of ${s.browser.max}`],
                ['Launches', String(s.browser.launches)],
              ])
            : h('p', {}, 'No browser on this server.'),
        ),
      );
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    timer = window.setTimeout(() => void refresh(), 3000);
  };
  void refresh();
  return () => clearTimeout(timer);
}
