import type { CdpMessage } from '../cdp-filter.js';
import type { ChromiumPipe } from './chromium-pipe.js';

/** One connection to the browser over the shared pipe, as if it were the browser's only one. */
export interface CdpChannel {
  send(message: CdpMessage): void;
  onmessage: ((message: CdpMessage) => void) | null;
  /** Once, when the browser or the channel goes away. */
  onclose: ((reason?: string) => void) | null;
  close(): void;
}

/** A page target of the browser, as the service's own connection sees it attached. */
export interface PageTarget {
  targetId: string;
  browserContextId: string;
  /** The root's session on it (the service's Playwright attaches every page). */
  session: string;
}

interface Route {
  /** The browser session the channel's own commands go to; null for the service's connection (the root). */
  base: string | null;
  closed: boolean;
  channel: CdpChannel;
}

interface Waiting {
  route: Route | null;
  /** The sender's own id; null for the mux's own commands, answered to `done`. */
  id: number | null;
  method: string;
  done?: (message: CdpMessage) => void;
}

const ATTACHING = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

/**
 * Several CDP connections over one DevTools pipe. The service's Playwright has the pipe's root (the browser's
 * own session); each client channel is a browser session of its own (`Target.attachToBrowserTarget`), shown to
 * it as a root: its commands go to that session, that session's messages come back without its id, and the
 * sessions it attaches are its alone. Ids are rewritten so no two senders' commands meet. Every page target
 * the browser attaches to the root is counted by context (the service's connection auto-attaches them all).
 */
export class CdpMux {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  /** The route of every attached session, by its id. */
  private readonly owners = new Map<string, Route>();
  private readonly rootRoute: Route;
  private readonly pages = new Map<string, PageTarget>();
  private closedWith: string | null = null;
  /** Called for each page target the browser attaches (after it is counted). */
  onPage: ((page: PageTarget) => void) | null = null;

  constructor(private readonly pipe: ChromiumPipe) {
    const root: CdpChannel = {
      onmessage: null,
      onclose: null,
      send: (message) => this.fromSender(this.rootRoute, message),
      close: () => pipe.kill(),
    };
    this.rootRoute = { base: null, closed: false, channel: root };
    pipe.onmessage = (message) => this.fromBrowser(message);
    void pipe.exited.then((why) => this.ended(why));
  }

  /** The service's own connection: a transport Playwright's connectOverCDP takes. */
  get root(): CdpChannel {
    return this.rootRoute.channel;
  }

  /** Page targets attached now whose context is one of `contexts`. */
  pagesOf(contexts: ReadonlySet<string>): PageTarget[] {
    return [...this.pages.values()].filter((p) => contexts.has(p.browserContextId));
  }

  /** Sends a command of the mux's own on the root; its answer, or an error when the browser is gone. */
  command(
    method: string,
    params: Record<string, unknown> = {},
    onAnswer?: (message: CdpMessage) => void,
  ): Promise<CdpMessage> {
    return new Promise((resolve, reject) => {
      if (this.closedWith) return reject(new Error(this.closedWith));
      const id = this.nextId++;
      const done = (message: CdpMessage): void => {
        onAnswer?.(message);
        resolve(message);
      };
      this.waiting.set(id, { route: null, id: null, method, done });
      this.pipe.send({ id, method, params });
    });
  }

  /**
   * Closes a page the root attached. A new page waits for every attached debugger before it runs, and its
   * renderer (the opener's too, for a popup) with it; closing a page still waiting would leave that renderer
   * waiting for ever. So it is let run first.
   */
  closePage(page: PageTarget): void {
    if (this.closedWith) return;
    const id = this.nextId++;
    this.waiting.set(id, {
      route: null,
      id: null,
      method: 'Runtime.runIfWaitingForDebugger',
      done: () => undefined,
    });
    this.pipe.send({ id, method: 'Runtime.runIfWaitingForDebugger', sessionId: page.session });
    void this.command('Target.closeTarget', { targetId: page.targetId }).catch(() => undefined);
  }

  /** A new client connection: a browser session of its own. */
  async channel(): Promise<CdpChannel> {
    const route: Route = {
      base: null,
      closed: false,
      channel: {
        onmessage: null,
        onclose: null,
        send: (message) => this.fromSender(route, message),
        close: () => this.closeRoute(route, undefined, true),
      },
    };
    // Owned as soon as the answer is read: the session's first events may follow in the same chunk.
    const answer = await this.command('Target.attachToBrowserTarget', {}, (message) => {
      const base = message.result?.sessionId;
      if (typeof base !== 'string') return;
      route.base = base;
      this.owners.set(base, route);
    });
    if (route.base === null) throw new Error(answer.error?.message ?? 'no browser session');
    if (this.closedWith) this.closeRoute(route, this.closedWith, false);
    return route.channel;
  }

  private fromSender(route: Route, message: CdpMessage): void {
    if (route.closed || this.closedWith) return;
    const { sessionId } = message;
    if (sessionId !== undefined && this.owners.get(sessionId) !== route) {
      const error = { code: -32001, message: `Session with given id not found: ${sessionId}` };
      return void queueMicrotask(() => route.channel.onmessage?.({ id: message.id, error, sessionId }));
    }
    const id = this.nextId++;
    this.waiting.set(id, { route, id: message.id ?? null, method: String(message.method) });
    const to = sessionId ?? route.base ?? undefined;
    this.pipe.send({ ...message, id, ...(to !== undefined ? { sessionId: to } : {}) });
  }

  private fromBrowser(message: CdpMessage): void {
    if (typeof message.id === 'number') return this.answered(message);
    const { sessionId } = message;
    if (sessionId === undefined) this.count(message);
    const route = sessionId === undefined ? this.rootRoute : this.owners.get(sessionId);
    if (!route) return;
    const child = message.params?.sessionId;
    // The root hears of the clients' own browser sessions coming and going: those are not its to know.
    if (route === this.rootRoute && typeof child === 'string' && this.owners.get(child)?.base === child)
      return;
    if (message.method === 'Target.attachedToTarget' && typeof child === 'string')
      this.owners.set(child, route);
    this.deliver(route, message);
    if (message.method === 'Target.detachedFromTarget' && typeof child === 'string') {
      if (this.owners.get(child)?.base !== child) this.owners.delete(child);
    }
  }

  private answered(message: CdpMessage): void {
    const waiting = this.waiting.get(message.id!);
    if (!waiting) return;
    this.waiting.delete(message.id!);
    if (waiting.done) return waiting.done(message);
    const route = waiting.route!;
    const attached = message.result?.sessionId;
    if (ATTACHING.has(waiting.method) && typeof attached === 'string') this.owners.set(attached, route);
    if (waiting.id === null) return;
    this.deliver(route, { ...message, id: waiting.id });
  }

  private deliver(route: Route, message: CdpMessage): void {
    if (route.closed) return;
    const shown: CdpMessage =
      route.base !== null && message.sessionId === route.base ? withoutSession(message) : message;
    route.channel.onmessage?.(shown);
  }

  /** Keeps the count of page targets from the root's auto-attach (every page of every context). */
  private count(message: CdpMessage): void {
    const params = message.params ?? {};
    if (message.method === 'Target.attachedToTarget') {
      const info = params.targetInfo as { targetId?: string; type?: string; browserContextId?: string };
      if (info?.type !== 'page' || !info.targetId || !info.browserContextId) return;
      const session = String(params.sessionId);
      const page = { targetId: info.targetId, browserContextId: info.browserContextId, session };
      this.pages.set(session, page);
      this.onPage?.(page);
    } else if (message.method === 'Target.detachedFromTarget') {
      this.pages.delete(String(params.sessionId));
    }
  }

  private closeRoute(route: Route, reason: string | undefined, detach: boolean): void {
    if (route.closed) return;
    route.closed = true;
    for (const [sessionId, owner] of this.owners) if (owner === route) this.owners.delete(sessionId);
    for (const [id, waiting] of this.waiting) if (waiting.route === route) this.waiting.delete(id);
    if (detach && route.base !== null && !this.closedWith) {
      // Its sessions end with it; the answer is nobody's.
      this.command('Target.detachFromTarget', { sessionId: route.base }).catch(() => undefined);
    }
    route.channel.onclose?.(reason);
  }

  private ended(why: string): void {
    this.closedWith = why;
    for (const waiting of this.waiting.values()) {
      waiting.done?.({ error: { code: -32000, message: why } });
    }
    this.waiting.clear();
    const routes = new Set([...this.owners.values()]);
    for (const route of routes) this.closeRoute(route, why, false);
    this.rootRoute.closed = true;
    this.rootRoute.channel.onclose?.(why);
  }
}

function withoutSession(message: CdpMessage): CdpMessage {
  const copy = { ...message };
  delete copy.sessionId;
  return copy;
}
