import { CdpFilter } from './cdp-filter.js';
import type { CdpMessage, CdpScope, Verdict } from './cdp-filter.js';
import type { CdpChannel } from './host/cdp-mux.js';

/** The client's WebSocket as the proxy uses it (the server side of `ws`, from the HTTP surface). */
export interface CdpClientSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

export interface CdpProxyHooks {
  /** Every command from the client (the session's activity). */
  activity(): void;
  /** A command refused by the filter, with the reason. */
  refused(method: string, reason: string): void;
}

/** A CDP connection through the proxy: ends both sides. */
export interface CdpLink {
  close(code: number, reason: string): void;
  readonly closed: Promise<void>;
}

/** Close codes: the session ended (4000), or the browser went away (1011). */
export const SESSION_CLOSED = 4000;

/**
 * Joins a client's WebSocket to a connection of the session's browser (a browser session of its own on the
 * pipe, so auto-attach and discovery are the client's own) through a CdpFilter for the session's scope. The
 * client is read from the start; what it sends before the connection is made waits for it. Messages are JSON
 * text; a message that is not JSON ends the connection.
 */
export function linkCdp(
  client: CdpClientSocket,
  connecting: Promise<CdpChannel>,
  scope: CdpScope,
  hooks: CdpProxyHooks,
): CdpLink {
  const filter = new CdpFilter(scope);
  let upstream: CdpChannel | null = null;
  const queued: CdpMessage[] = [];
  let open = true;
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));
  const close = (code: number, reason: string): void => {
    if (!open) return;
    open = false;
    filter.dispose();
    client.close(code, reason.slice(0, 120));
    upstream?.close();
    done();
  };
  const apply = (verdict: Verdict): void => {
    for (const m of verdict.toBrowser) {
      if (upstream) upstream.send(m);
      else queued.push(m);
    }
    for (const m of verdict.toClient) client.send(JSON.stringify(m));
  };
  connecting.then(
    (channel) => {
      if (!open) return channel.close();
      upstream = channel;
      channel.onmessage = (message) => {
        if (open) apply(filter.fromBrowser(message));
      };
      channel.onclose = (reason) => close(1011, reason ?? 'the browser closed the connection');
      for (const m of queued.splice(0)) channel.send(m);
    },
    (err: unknown) => close(1011, err instanceof Error ? err.message : 'the browser is gone'),
  );
  client.on('message', (data) => {
    if (!open) return;
    const message = parse(String(data));
    if (!message) return close(1003, 'CDP messages are JSON objects');
    hooks.activity();
    const verdict = filter.fromClient(message);
    if (verdict.refused) hooks.refused(String(message.method), verdict.refused);
    apply(verdict);
  });
  client.on('close', () => close(1000, ''));
  client.on('error', () => close(1011, ''));
  return { close, closed };
}

function parse(text: string): CdpMessage | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as CdpMessage)
      : null;
  } catch {
    return null;
  }
}
