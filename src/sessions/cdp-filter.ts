import { BROWSER_ALLOWED, CHECKS, NO_EFFECT, PAGE_ALLOWED } from './cdp-methods.js';

/** One CDP message: a command (`id`, `method`), its answer (`id`, `result` or `error`), or an event. */
export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** What one session's CDP clients may reach: its own contexts, through its guarded proxy, within its caps. */
export interface CdpScope {
  /** The session's context: the default (and first) context of the client's view. */
  primary: string;
  /** Contexts the session's clients created (`Target.createBrowserContext`), disposed when it ends. */
  extra: Set<string>;
  /** Contexts the session's clients may add, and those asked for and not answered yet (counted when asked). */
  maxContexts: number;
  pendingContexts: number;
  /** Pages the session may have open at once (its clients' and its pages' popups), and pages asked for. */
  maxPages: number;
  pendingPages: number;
  /** Pages open now in the session's contexts. */
  openPages(): number;
  /** The guarded proxy every context of the session goes through (the SSRF guard). */
  proxyServer: string;
}

/** What to do with one message: send these to Chromium and these to the client; `refused` counts a refusal. */
export interface Verdict {
  toBrowser: CdpMessage[];
  toClient: CdpMessage[];
  refused?: string;
}

/**
 * The policy between one CDP client and the browser, for one session: the client sees its session's context
 * as the browser's default (and only) context, and the contexts it created; every other target, context and
 * session of the browser is invisible to it and out of its reach. Commands are served from the allow-lists of
 * cdp-methods.ts by the kind of session they are sent on (the browser's, or a page's), their parameters
 * checked; contexts and pages are counted when asked for. Commands get ids of their own on the browser side, so
 * the proxy can send its own (to release a target of another context that auto-attach paused) and read the
 * answers it must filter.
 */
export class CdpFilter {
  private nextId = 1;
  private readonly pending = new Map<number, { client: CdpMessage | null }>();
  /** Targets of the session's contexts this client knows, and its sessions attached to them. */
  private readonly targets = new Set<string>();
  private readonly sessions = new Set<string>();
  /** Browser sessions the client attached (`Target.attachToBrowserTarget`): served as its root is. */
  private readonly browserSessions = new Set<string>();

  constructor(private readonly scope: CdpScope) {}

  private ours(contextId: unknown): boolean {
    return (
      typeof contextId === 'string' && (contextId === this.scope.primary || this.scope.extra.has(contextId))
    );
  }

  private refuse(msg: CdpMessage, reason: string): Verdict {
    const message = `${msg.method ?? 'message'} refused by Pagewright: ${reason}`;
    return {
      toBrowser: [],
      toClient: [{ id: msg.id, error: { code: -32000, message }, ...sessionOf(msg) }],
      refused: reason,
    };
  }

  private answer(msg: CdpMessage, result: Record<string, unknown>): Verdict {
    return { toBrowser: [], toClient: [{ id: msg.id, result, ...sessionOf(msg) }] };
  }

  private send(msg: CdpMessage, client: CdpMessage | null): CdpMessage {
    const id = this.nextId++;
    this.pending.set(id, { client });
    return { ...msg, id };
  }

  private forward(msg: CdpMessage, params = msg.params): Verdict {
    return { toBrowser: [this.send({ ...msg, ...(params ? { params } : {}) }, msg)], toClient: [] };
  }

  /** A command from the client. */
  fromClient(msg: CdpMessage): Verdict {
    if (typeof msg.id !== 'number' || typeof msg.method !== 'string') {
      return this.refuse({ ...msg, id: typeof msg.id === 'number' ? msg.id : 0 }, 'not a CDP command');
    }
    const method = msg.method;
    const params = msg.params ?? {};
    const session = msg.sessionId;
    const browserLevel = session === undefined || this.browserSessions.has(session);
    if (!browserLevel && !this.sessions.has(session)) {
      return this.refuse(msg, 'no such session of this browser session');
    }
    if (!(browserLevel ? BROWSER_ALLOWED : PAGE_ALLOWED).has(method)) {
      return this.refuse(msg, `not on the allow-list of ${browserLevel ? 'browser' : 'page'} commands`);
    }
    if (NO_EFFECT.has(method)) return this.answer(msg, {});
    if (params.browserContextId !== undefined && !this.ours(params.browserContextId)) {
      return this.refuse(msg, 'another browser context');
    }
    const wrong = CHECKS[method]?.check(params);
    if (wrong) return this.refuse(msg, wrong);
    if (method.startsWith('Target.')) return this.target(msg, params);
    if (!browserLevel) return this.forward(msg);
    if (method === 'Browser.getWindowForTarget') {
      return this.targets.has(String(params.targetId))
        ? this.forward(msg)
        : this.refuse(msg, 'unknown target');
    }
    if (method === 'Browser.getVersion' || method === 'Schema.getDomains') return this.forward(msg);
    // Permissions and cookies: the session's context when none is named (never another one, checked above).
    return this.forward(msg, { browserContextId: this.scope.primary, ...params });
  }

  private target(msg: CdpMessage, params: Record<string, unknown>): Verdict {
    const known = (id: unknown): boolean => this.targets.has(String(id));
    const { scope } = this;
    switch (msg.method) {
      case 'Target.setAutoAttach':
      case 'Target.attachToTarget':
        if (params.flatten !== true) return this.refuse(msg, 'only flat sessions (flatten: true) are served');
        if (msg.method === 'Target.attachToTarget' && !known(params.targetId))
          return this.refuse(msg, 'unknown target');
        return this.forward(msg);
      case 'Target.attachToBrowserTarget':
      case 'Target.setDiscoverTargets':
      case 'Target.getTargets':
        return this.forward(msg);
      case 'Target.getTargetInfo':
        return params.targetId === undefined || known(params.targetId)
          ? this.forward(msg)
          : this.refuse(msg, 'unknown target');
      case 'Target.activateTarget':
      case 'Target.closeTarget':
      case 'Target.autoAttachRelated':
        return known(params.targetId) ? this.forward(msg) : this.refuse(msg, 'unknown target');
      case 'Target.detachFromTarget': {
        const session = String(params.sessionId);
        return this.sessions.has(session) || this.browserSessions.has(session) || known(params.targetId)
          ? this.forward(msg)
          : this.refuse(msg, 'unknown session');
      }
      case 'Target.createTarget': {
        if (scope.openPages() + scope.pendingPages >= scope.maxPages) {
          return this.refuse(msg, `a session has at most ${scope.maxPages} pages open (MAX_SESSION_PAGES)`);
        }
        scope.pendingPages++;
        return this.forward(msg, { ...params, browserContextId: params.browserContextId ?? scope.primary });
      }
      case 'Target.createBrowserContext': {
        const escapes = ['proxyServer', 'proxyBypassList', 'originsWithUniversalNetworkAccess'].filter(
          (name) => params[name] !== undefined,
        );
        if (escapes.length > 0) {
          return this.refuse(
            msg,
            `${escapes.join(', ')}: every context goes through the service's guarded proxy`,
          );
        }
        if (scope.extra.size + scope.pendingContexts >= scope.maxContexts) {
          return this.refuse(
            msg,
            `a session has at most ${scope.maxContexts} contexts of its own (MAX_SESSION_CONTEXTS)`,
          );
        }
        scope.pendingContexts++;
        // Loopback too: Chromium would otherwise connect to 127.0.0.1, localhost and [::1] itself.
        return this.forward(msg, {
          ...params,
          proxyServer: scope.proxyServer,
          proxyBypassList: '<-loopback>',
        });
      }
      case 'Target.disposeBrowserContext':
        return scope.extra.has(String(params.browserContextId))
          ? this.forward(msg)
          : this.refuse(msg, 'only a context this session created');
      case 'Target.getBrowserContexts':
        return this.answer(msg, { browserContextIds: [...scope.extra] });
      default:
        return this.refuse(msg, 'not served');
    }
  }

  /** A message from the browser: an answer to a command, or an event. */
  fromBrowser(msg: CdpMessage): Verdict {
    if (typeof msg.id === 'number') return this.answered(msg);
    const session = msg.sessionId;
    const browserLevel = session === undefined || this.browserSessions.has(session);
    if (!browserLevel && !this.sessions.has(session)) return { toBrowser: [], toClient: [] };
    const params = msg.params ?? {};
    const info = params.targetInfo as { targetId: string; browserContextId?: string } | undefined;
    switch (msg.method) {
      case 'Target.attachedToTarget': {
        const child = String(params.sessionId);
        if ((info as { type?: string } | undefined)?.type === 'browser') {
          // The browser session the client asked for (Target.attachToBrowserTarget): its own, served as its root.
          this.browserSessions.add(child);
          return { toBrowser: [], toClient: [msg] };
        }
        if (info && this.ours(info.browserContextId)) {
          this.targets.add(info.targetId);
          this.sessions.add(child);
          return { toBrowser: [], toClient: [msg] };
        }
        // Another session's target, paused by auto-attach until this client lets it go: let it go, unseen.
        const parent = session !== undefined ? { sessionId: session } : {};
        const release: CdpMessage[] = [];
        if (params.waitingForDebugger === true) {
          release.push(this.send({ method: 'Runtime.runIfWaitingForDebugger', sessionId: child }, null));
        }
        release.push(
          this.send({ method: 'Target.detachFromTarget', params: { sessionId: child }, ...parent }, null),
        );
        return { toBrowser: release, toClient: [] };
      }
      case 'Target.detachedFromTarget': {
        const child = String(params.sessionId);
        const known = this.sessions.delete(child) || this.browserSessions.delete(child);
        return { toBrowser: [], toClient: known ? [msg] : [] };
      }
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged':
        if (!info || !this.ours(info.browserContextId)) return { toBrowser: [], toClient: [] };
        this.targets.add(info.targetId);
        return { toBrowser: [], toClient: [msg] };
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed': {
        const known = this.targets.has(String(params.targetId));
        if (msg.method === 'Target.targetDestroyed') this.targets.delete(String(params.targetId));
        return { toBrowser: [], toClient: known ? [msg] : [] };
      }
      default:
        // Events of the client's page sessions pass; the browser's own (downloads among them) do not.
        return { toBrowser: [], toClient: browserLevel ? [] : [msg] };
    }
  }

  /** Gives back what this client asked for and was never answered (its connection ended). */
  dispose(): void {
    for (const { client } of this.pending.values()) this.settle(client);
    this.pending.clear();
  }

  /** A command asked for a context or a page: no longer pending once answered (or never). */
  private settle(client: CdpMessage | null): void {
    if (client?.method === 'Target.createBrowserContext') this.scope.pendingContexts--;
    if (client?.method === 'Target.createTarget') this.scope.pendingPages--;
  }

  private answered(msg: CdpMessage): Verdict {
    const entry = this.pending.get(msg.id!);
    if (!entry) return { toBrowser: [], toClient: [] };
    this.pending.delete(msg.id!);
    const client = entry.client;
    if (!client) return { toBrowser: [], toClient: [] }; // the proxy's own command
    this.settle(client);
    const result = msg.result;
    if (result && !msg.error) {
      if (client.method === 'Target.getTargets') {
        const infos = (result.targetInfos as { targetId: string; browserContextId?: string }[]) ?? [];
        const mine = infos.filter((t) => this.ours(t.browserContextId));
        for (const t of mine) this.targets.add(t.targetId);
        return {
          toBrowser: [],
          toClient: [{ ...msg, id: client.id, result: { ...result, targetInfos: mine } }],
        };
      }
      if (client.method === 'Target.createTarget') this.targets.add(String(result.targetId));
      if (client.method === 'Target.attachToTarget') this.sessions.add(String(result.sessionId));
      if (client.method === 'Target.attachToBrowserTarget')
        this.browserSessions.add(String(result.sessionId));
      if (client.method === 'Target.createBrowserContext')
        this.scope.extra.add(String(result.browserContextId));
      if (client.method === 'Target.disposeBrowserContext') {
        this.scope.extra.delete(String(client.params?.browserContextId));
      }
    }
    return { toBrowser: [], toClient: [{ ...msg, id: client.id }] };
  }
}

const sessionOf = (msg: CdpMessage): { sessionId?: string } =>
  msg.sessionId !== undefined ? { sessionId: msg.sessionId } : {};
