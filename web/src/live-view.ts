import { api, apiKey } from './api.js';
import { fill, h, say } from './dom.js';
import { endSession } from './sessions.js';
import type { BrowserSession } from './sessions.js';

/** Characters a WebSocket subprotocol may hold (RFC 7230 tokens): the key travels as one. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Mouse moves sent at most this often (the server takes 60 input events a second). */
const MOVE_MS = 50;

const modifiersOf = (e: MouseEvent | KeyboardEvent): number =>
  (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
const BUTTONS = ['left', 'middle', 'right'];

/**
 * `#/sessions/<id>` and `#/sessions/<id>/interactive`: a browser session live. Frames come over the
 * `/v2/browser/<id>/live` WebSocket (JPEG, drawn on a canvas); the key goes as the WebSocket's subprotocol, a
 * header (never in the URL). Interactive, the canvas sends clicks, scrolls and keys.
 */
export function liveView(root: HTMLElement, id: string, interactive: boolean): () => void {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const address = h('p', { class: 'url', 'data-testid': 'live-url' });
  const canvas = h('canvas', {
    class: 'live',
    width: 1280,
    height: 800,
    'data-frames': 0,
    'aria-label': interactive ? 'The session, interactive: click and type here' : 'The session, live',
    ...(interactive ? { tabindex: 0 } : {}),
  });
  const context2d = canvas.getContext('2d')!;
  const end = h('button', { type: 'button', class: 'danger' }, 'End session');
  const other = interactive
    ? h('a', { href: `#/sessions/${id}` }, 'View only')
    : h('a', { href: `#/sessions/${id}/interactive` }, 'Interact');
  fill(
    root,
    h('h1', {}, interactive ? 'Browser session (interactive)' : 'Browser session'),
    h('div', { class: 'row' }, h('code', {}, id), other, h('a', { href: '#/jobs' }, 'All sessions'), end),
    status,
    address,
    canvas,
  );
  let socket: WebSocket | null = null;
  let left = false;
  end.addEventListener('click', () => {
    end.disabled = true;
    void endSession(id)
      .then(() => say(status, 'Session ended.'))
      .catch((err: Error) => say(status, err.message, true))
      .finally(() => (end.disabled = false));
  });

  async function connect(): Promise<void> {
    say(status, 'Connecting…');
    try {
      const { sessions } = await api<{ sessions: BrowserSession[] }>('/v2/browser?status=active');
      if (!sessions.some((s) => s.id === id)) return say(status, `No active session ${id}.`, true);
    } catch (err) {
      return say(status, (err as Error).message, true);
    }
    const key = apiKey.get();
    if (key && !TOKEN.test(key)) {
      return say(
        status,
        'This key has characters a WebSocket cannot carry; the live view needs another.',
        true,
      );
    }
    if (left) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = interactive ? '?interactive=true' : '';
    const ws = new WebSocket(`${scheme}://${location.host}/v2/browser/${id}/live${query}`, key ? [key] : []);
    socket = ws;
    ws.binaryType = 'blob';
    let frames = 0;
    let drawn = 0;
    ws.onopen = () => say(status, interactive ? 'Live: clicks, scrolls and keys go to the page.' : 'Live.');
    ws.onmessage = (event) => {
      if (typeof event.data === 'string') {
        const message = JSON.parse(event.data) as { type: string; url?: string };
        if (message.type === 'page') address.textContent = message.url ?? '';
        return;
      }
      const n = ++frames;
      void createImageBitmap(event.data as Blob).then((bitmap) => {
        if (n > drawn) {
          drawn = n;
          if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
            canvas.width = bitmap.width;
            canvas.height = bitmap.height;
          }
          context2d.drawImage(bitmap, 0, 0);
          canvas.dataset.frames = String(n);
        }
        bitmap.close();
      });
    };
    ws.onclose = (event) => {
      if (left) return;
      const why = event.reason || (event.code === 1006 ? 'the server refused or dropped the connection' : '');
      say(status, `The live view ended${why ? `: ${why}` : ''}.`, event.code !== 1000);
    };
    if (interactive) bindInput(canvas, (message) => ws.readyState === WebSocket.OPEN && ws.send(message));
  }
  void connect();
  return () => {
    left = true;
    socket?.close(1000);
  };
}

/** Clicks, moves, scrolls and keys on the canvas as the live view's input messages (positions as fractions). */
function bindInput(canvas: HTMLCanvasElement, send: (message: string) => void): void {
  const at = (e: MouseEvent) => ({
    x: Math.min(1, Math.max(0, e.offsetX / canvas.clientWidth)),
    y: Math.min(1, Math.max(0, e.offsetY / canvas.clientHeight)),
    modifiers: modifiersOf(e),
  });
  const mouse = (type: string, e: MouseEvent, clickCount: number): void =>
    send(JSON.stringify({ t: 'mouse', type, ...at(e), button: BUTTONS[e.button] ?? 'none', clickCount }));
  let movedAt = 0;
  canvas.addEventListener('mousedown', (e) => {
    canvas.focus();
    mouse('mousePressed', e, e.detail || 1);
  });
  canvas.addEventListener('mouseup', (e) => mouse('mouseReleased', e, e.detail || 1));
  canvas.addEventListener('mousemove', (e) => {
    if (e.timeStamp - movedAt < MOVE_MS) return;
    movedAt = e.timeStamp;
    send(JSON.stringify({ t: 'mouse', type: 'mouseMoved', ...at(e), button: 'none', clickCount: 0 }));
  });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      send(JSON.stringify({ t: 'wheel', ...at(e), deltaX: e.deltaX, deltaY: e.deltaY }));
    },
    { passive: false },
  );
  for (const type of ['keydown', 'keyup'] as const) {
    canvas.addEventListener(type, (e) => {
      // Tab leaves the canvas (keyboard users must be able to get out); every other key goes to the page.
      if (e.key === 'Tab') return;
      e.preventDefault();
      const kind = type === 'keydown' ? 'keyDown' : 'keyUp';
      send(JSON.stringify({ t: 'key', type: kind, key: e.key, code: e.code, modifiers: modifiersOf(e) }));
    });
  }
}
