import { api } from './api.js';
import { fill, h, say } from './dom.js';

/** A browser session as `GET /v2/browser` lists it. */
export interface BrowserSession {
  id: string;
  status: 'active' | 'destroyed';
  liveViewUrl: string;
  interactiveLiveViewUrl: string;
  createdAt: string;
  lastActivity: string;
  expiresAt: string;
  ttl: number;
  activityTtl: number;
  holder: string;
}

/** Ends a session (`DELETE /v2/browser/<id>`). */
export const endSession = (id: string): Promise<unknown> =>
  api(`/v2/browser/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** Seconds as `1h 02m`, `3m 05s` or `42s`. */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${s}s`;
}

/**
 * The jobs view's list of active browser sessions: age, TTL and idle TTL with what is left of each, links to
 * the live view, and a button to end each. Refreshed every five seconds; `stop` ends the refresh.
 */
export function sessionsPanel(): { element: HTMLElement; stop: () => void } {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const list = h('div', {});
  const element = h(
    'section',
    { 'aria-label': 'Browser sessions' },
    h('h2', {}, 'Browser sessions'),
    status,
    list,
  );
  let timer = 0;
  let stopped = false;
  async function refresh(): Promise<void> {
    clearTimeout(timer);
    try {
      const { sessions } = await api<{ sessions: BrowserSession[] }>('/v2/browser?status=active');
      fill(list, sessions.length === 0 ? h('p', {}, 'No active browser sessions.') : table(sessions, end));
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    if (!stopped) timer = window.setTimeout(() => void refresh(), 5000);
  }
  async function end(id: string, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await endSession(id);
      say(status, `Session ${id} ended.`);
    } catch (err) {
      say(status, (err as Error).message, true);
    }
    await refresh();
  }
  void refresh();
  return {
    element,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function table(
  sessions: BrowserSession[],
  end: (id: string, button: HTMLButtonElement) => Promise<void>,
): HTMLTableElement {
  const now = Date.now();
  const head = ['Session', 'Age', 'TTL', 'Idle TTL', ''];
  return h(
    'table',
    { class: 'data' },
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...sessions.map((s) => {
        const idle = now - Date.parse(s.lastActivity);
        const button = h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `End session ${s.id}` },
          'End',
        );
        button.addEventListener('click', () => void end(s.id, button));
        return h(
          'tr',
          { 'data-session': s.id },
          h(
            'td',
            {},
            h('code', {}, s.id.slice(0, 8)),
            ' ',
            h('a', { href: `#/sessions/${s.id}`, 'aria-label': `Watch session ${s.id}` }, 'watch'),
            ' · ',
            h(
              'a',
              { href: `#/sessions/${s.id}/interactive`, 'aria-label': `Interact with session ${s.id}` },
              'interact',
            ),
          ),
          h('td', {}, duration(now - Date.parse(s.createdAt))),
          h('td', {}, `${duration(s.ttl * 1000)} (${duration(Date.parse(s.expiresAt) - now)} left)`),
          h('td', {}, `${duration(s.activityTtl * 1000)} (idle ${duration(idle)})`),
          h('td', {}, button),
        );
      }),
    ),
  );
}
