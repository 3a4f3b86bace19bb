import type { CDPSession, Page } from 'playwright-core';
import type { CdpLink } from './cdp-proxy.js';
import { SESSION_CLOSED } from './cdp-proxy.js';
import { MAX_INPUT_BYTES, toInputCommand } from './live-input.js';
import type { FrameSize } from './live-input.js';

/** The viewer's WebSocket as the live view uses it (the server side of `ws`, from the HTTP surface). */
export interface LiveViewerSocket {
  send(data: string | Buffer): void;
  close(code?: number, reason?: string): void;
  readonly bufferedAmount: number;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

/** What the live view needs of its session. */
export interface LiveSource {
  /** The session's current page; rejects once the session has ended. */
  page(): Promise<Page>;
  /** The viewer's input arrived (the session's activity; interactive viewers only). */
  activity(): void;
}

/** The screencast: JPEG frames at most this large, at this quality, at most this often. */
export const SCREENCAST = { format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 800 } as const;
const MIN_FRAME_MS = 100;
/** Frames are skipped while this much is still waiting to reach the viewer (a slow network). */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** Input events a viewer may send per second (a burst of twice as many is taken). */
const INPUT_PER_SECOND = 60;

/**
 * Shows a session's current page to one viewer: Chromium's screencast (`Page.startScreencast`, JPEG, bounded
 * size, quality and rate; each frame acknowledged only once sent, so a slow viewer slows the screencast down)
 * as binary messages, and `{"type":"page","url"}` text messages when the page changes. An interactive
 * viewer's mouse, wheel and key messages become `Input.dispatchMouseEvent` / `Input.dispatchKeyEvent` and
 * count as the session's activity; a view-only viewer's messages are ignored, and looking is never activity.
 * Follows the session to a new tab and to the next one when its page closes; ends when the viewer leaves or
 * the session ends (close code 4000).
 */
export function startLiveView(
  viewer: LiveViewerSocket,
  source: LiveSource,
  options: { interactive: boolean },
): CdpLink {
  let open = true;
  let cdp: CDPSession | null = null;
  let page: Page | null = null;
  let frame: FrameSize | null = null;
  let lastFrameAt = 0;
  let tokens = INPUT_PER_SECOND * 2;
  let refilledAt = Date.now();
  let switching: Promise<void> = Promise.resolve();
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));

  const close = (code: number, reason: string): void => {
    if (!open) return;
    open = false;
    viewer.close(code, reason);
    page?.context().off('page', onNewPage);
    void detach(cdp);
    cdp = null;
    done();
  };
  const detach = async (session: CDPSession | null): Promise<void> => {
    if (!session) return;
    await session.send('Page.stopScreencast').catch(() => undefined);
    await session.detach().catch(() => undefined);
  };
  const onNewPage = (next: Page): void => follow(next);
  const onClose = (): void => follow(null);
  /** Moves the screencast to `next`, or to the session's current page; one move at a time. */
  const follow = (next: Page | null): void => {
    switching = switching.then(async () => {
      if (!open) return;
      try {
        const target = next ?? (await source.page());
        if (target !== page) await attach(target);
      } catch (err) {
        close(SESSION_CLOSED, (err as Error).message.slice(0, 120));
      }
    });
  };
  const attach = async (target: Page): Promise<void> => {
    page?.off('close', onClose);
    page?.off('framenavigated', onNavigated);
    const previous = cdp;
    cdp = null;
    await detach(previous);
    if (page?.context() !== target.context()) {
      page?.context().off('page', onNewPage);
      target.context().on('page', onNewPage);
    }
    page = target;
    target.on('close', onClose);
    target.on('framenavigated', onNavigated);
    const session = await target.context().newCDPSession(target);
    if (!open) return void (await session.detach().catch(() => undefined));
    cdp = session;
    session.on('Page.screencastFrame', (event) => onFrame(session, event));
    viewer.send(JSON.stringify({ type: 'page', url: target.url() }));
    await session.send('Page.startScreencast', { ...SCREENCAST, everyNthFrame: 1 });
  };
  const onNavigated = (f: ReturnType<Page['mainFrame']>): void => {
    if (open && f === page?.mainFrame()) viewer.send(JSON.stringify({ type: 'page', url: f.url() }));
  };
  const onFrame = (
    session: CDPSession,
    event: { data: string; sessionId: number; metadata: { deviceWidth?: number; deviceHeight?: number } },
  ): void => {
    if (!open || session !== cdp) return;
    const { deviceWidth, deviceHeight } = event.metadata;
    if (deviceWidth && deviceHeight) frame = { deviceWidth, deviceHeight };
    if (viewer.bufferedAmount < MAX_BUFFERED_BYTES) viewer.send(Buffer.from(event.data, 'base64'));
    // The next frame comes only after this acknowledgement: at most one per MIN_FRAME_MS.
    const wait = Math.max(0, lastFrameAt + MIN_FRAME_MS - Date.now());
    lastFrameAt = Date.now() + wait;
    setTimeout(() => {
      if (open && session === cdp) {
        void session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
      }
    }, wait);
  };
  const onInput = (data: unknown): void => {
    if (!open || !options.interactive) return;
    const text = Buffer.isBuffer(data) ? data : Buffer.from(String(data));
    if (text.length > MAX_INPUT_BYTES)
      return close(1009, `input messages are at most ${MAX_INPUT_BYTES} bytes`);
    const now = Date.now();
    tokens = Math.min(INPUT_PER_SECOND * 2, tokens + ((now - refilledAt) / 1000) * INPUT_PER_SECOND);
    refilledAt = now;
    if (tokens < 1 || !frame || !cdp) return;
    tokens -= 1;
    let message: unknown;
    try {
      message = JSON.parse(text.toString('utf8'));
    } catch {
      return;
    }
    const command = toInputCommand(message, frame);
    if (!command) return;
    source.activity();
    void cdp.send(command.method, command.params as never).catch(() => undefined);
  };

  viewer.on('message', onInput);
  viewer.on('close', () => close(1000, ''));
  viewer.on('error', () => close(1011, ''));
  follow(null);
  return { close, closed };
}
