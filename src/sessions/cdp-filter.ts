/** One CDP message: a command (`id`, `method`), its answer (`id`, `result` or `error`), or an event. */
export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** What one session's CDP clients may reach: its own contexts, through its guarded proxy. */
export interface CdpScope {
  /** The session's context: the default (and first) context of the client's view. */
  primary: string;
  /** Contexts the session's clients created (`Target.createBrowserContext`), disposed when it ends. */
  extra: Set<string>;
  maxExtra: number;
  /** The guarded proxy every context of the session goes through (the SSRF guard). */
  proxyServer: string;
}

/** What to do with one message: send these to Chromium and these to the client; `refused` counts a refusal. */
export interface Verdict {
  toBrowser: CdpMessage[];
  toClient: CdpMessage[];
  refused?: string;
}

/** Commands without a session (the browser's own) a client may send, as they are or rewritten below. */
const BROWSER_LEVEL = new Set([
  'Browser.getVersion',
  'Browser.setDownloadBehavior',
  'Browser.cancelDownload',
  'Browser.grantPermissions',
  'Browser.resetPermissions',
  'Browser.setPermission',
  'Browser.getWindowForTarget',
  'Target.setAutoAttach',
  'Target.setDiscoverTargets',
  'Target.getTargets',
  'Target.getTargetInfo',
  'Target.attachToTarget',
  'Target.detachFromTarget',
  'Target.activateTarget',
  'Target.closeTarget',
  'Target.createTarget',
  'Target.createBrowserContext',
  'Target.disposeBrowserContext',
  'Target.getBrowserContexts',
  'Target.autoAttachRelated',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
  'Schema.getDomains',
]);

/** Domains of a page's (or worker's) own session a client may use; the methods below are refused within them. */
const PAGE_DOMAINS = new Set(
  (
    'Accessibility Animation Audits Autofill BackgroundService CacheStorage Console CSS Database Debugger ' +
    'DeviceAccess DeviceOrientation DOM DOMDebugger DOMSnapshot DOMStorage Emulation EventBreakpoints FedCm ' +
    'Fetch HeadlessExperimental HeapProfiler IndexedDB Input Inspector IO LayerTree Log Media Network Overlay ' +
    'Page Performance PerformanceTimeline Preload Profiler Runtime Schema ServiceWorker Storage Target ' +
    'WebAudio WebAuthn'
  ).split(' '),
);

/** Methods of those domains that reach beyond the session: the server's files, the whole browser, the CDP. */
const PAGE_REFUSED: Record<string, string> = {
  'DOM.setFileInputFiles': "reads files from the server's disk",
  'Network.loadNetworkResource': 'loads a resource outside the page',
  'Target.exposeDevToolsProtocol': "gives a page the browser's CDP",
  'Target.createBrowserContext': 'only on the browser session',
  'Target.disposeBrowserContext': 'only on the browser session',
  'Target.attachToBrowserTarget': "opens the whole browser's session",
  'Target.sendMessageToTarget': 'only flat sessions are served',
  'Target.setRemoteLocations': 'not served',
  'Storage.clearDataForOrigin': 'reaches every context of the browser',
  'Storage.clearDataForStorageKey': 'reaches every context of the browser',
  'Network.clearBrowserCache': "clears the whole browser's cache",
};

/** Download settings are answered as done and change nothing: the context denies every download. */
const NO_EFFECT = new Set([
  'Browser.setDownloadBehavior',
  'Browser.cancelDownload',
  'Page.setDownloadBehavior',
]);

/** Where a page may be sent by CDP: the web through the proxy, or a document with no network. */
const NAVIGABLE = /^(https?:|about:|data:)/i;

/**
 * The policy between one CDP client and the browser, for one session: the client sees its session's context
 * as the browser's default (and only) context, and the contexts it created; every other target, context and
 * session of the browser is invisible to it and out of its reach. Commands get ids of their own on the
 * browser side, so the proxy can send its own (to release a target of another context that auto-attach
 * paused) and read the answers it must filter.
 */
export class CdpFilter {
  private nextId = 1;
  private readonly pending = new Map<number, { client: CdpMessage | null }>();
  /** Targets of the session's contexts this client knows, and its sessions attached to them. */
  private readonly targets = new Set<string>();
  private readonly sessions = new Set<string>();

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
    if (NO_EFFECT.has(method)) return this.answer(msg, {});
    if (params.browserContextId !== undefined && !this.ours(params.browserContextId)) {
      return this.refuse(msg, 'another browser context');
    }
    if (msg.sessionId !== undefined) {
      if (!this.sessions.has(msg.sessionId))
        return this.refuse(msg, 'no such session of this browser session');
      if (!PAGE_DOMAINS.has(method.split('.')[0]!)) return this.refuse(msg, 'domain not served');
      if (PAGE_REFUSED[method]) return this.refuse(msg, PAGE_REFUSED[method]);
      if (method.startsWith('Target.')) return this.target(msg, params);
      if (method === 'Page.navigate' && !NAVIGABLE.test(String(params.url ?? ''))) {
        return this.refuse(msg, 'only http(s), about: and data: URLs are opened');
      }
      if (method === 'Security.setIgnoreCertificateErrors') return this.refuse(msg, 'browser-wide');
      return this.forward(msg);
    }
    if (!BROWSER_LEVEL.has(method)) return this.refuse(msg, 'not on the allow-list of browser commands');
    if (method.startsWith('Target.')) return this.target(msg, params);
    if (method === 'Browser.getWindowForTarget') {
      return this.targets.has(String(params.targetId))
        ? this.forward(msg)
        : this.refuse(msg, 'unknown target');
    }
    // Permissions and cookies: the session's context when none is named (never another one, checked above).
    if (method === 'Browser.getVersion' || method === 'Schema.getDomains') return this.forward(msg);
    return this.forward(msg, { browserContextId: this.scope.primary, ...params });
  }

  private target(msg: CdpMessage, params: Record<string, unknown>): Verdict {
    const known = (id: unknown): boolean => this.targets.has(String(id));
    switch (msg.method) {
      case 'Target.setAutoAttach':
      case 'Target.attachToTarget':
        if (params.flatten !== true) return this.refuse(msg, 'only flat sessions (flatten: true) are served');
        if (msg.method === 'Target.attachToTarget' && !known(params.targetId))
          return this.refuse(msg, 'unknown target');
        return this.forward(msg);
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
      case 'Target.detachFromTarget':
        return this.sessions.has(String(params.sessionId)) || known(params.targetId)
          ? this.forward(msg)
          : this.refuse(msg, 'unknown session');
      case 'Target.createTarget': {
        if (!NAVIGABLE.test(String(params.url ?? 'about:blank'))) {
          return this.refuse(msg, 'only http(s), about: and data: URLs are opened');
        }
        if (params.browserContextId === undefined) {
          return this.forward(msg, { ...params, browserContextId: this.scope.primary });
        }
        return this.forward(msg);
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
        if (this.scope.extra.size >= this.scope.maxExtra) {
          return this.refuse(msg, `a session has at most ${this.scope.maxExtra} contexts of its own`);
        }
        return this.forward(msg, { ...params, proxyServer: this.scope.proxyServer });
      }
      case 'Target.disposeBrowserContext':
        return this.scope.extra.has(String(params.browserContextId))
          ? this.forward(msg)
          : this.refuse(msg, 'only a context this session created');
      case 'Target.getBrowserContexts':
        return this.answer(msg, { browserContextIds: [...this.scope.extra] });
      default:
        return this.refuse(msg, 'not served');
    }
  }

  /** A message from the browser: an answer to a command, or an event. */
  fromBrowser(msg: CdpMessage): Verdict {
    if (typeof msg.id === 'number') return this.answered(msg);
    if (msg.sessionId !== undefined && !this.sessions.has(msg.sessionId))
      return { toBrowser: [], toClient: [] };
    const params = msg.params ?? {};
    const info = params.targetInfo as { targetId: string; browserContextId?: string } | undefined;
    switch (msg.method) {
      case 'Target.attachedToTarget': {
        const child = String(params.sessionId);
        if (info && this.ours(info.browserContextId)) {
          this.targets.add(info.targetId);
          this.sessions.add(child);
          return { toBrowser: [], toClient: [msg] };
        }
        // Another session's target, paused by auto-attach until this client lets it go: let it go, unseen.
        const parent = msg.sessionId !== undefined ? { sessionId: msg.sessionId } : {};
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
        const known = this.sessions.delete(String(params.sessionId));
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
        // Events of the client's own sessions pass; the browser's own (downloads among them) do not.
        return { toBrowser: [], toClient: msg.sessionId !== undefined ? [msg] : [] };
    }
  }

  private answered(msg: CdpMessage): Verdict {
    const entry = this.pending.get(msg.id!);
    if (!entry) return { toBrowser: [], toClient: [] };
    this.pending.delete(msg.id!);
    const client = entry.client;
    if (!client) return { toBrowser: [], toClient: [] }; // the proxy's own command
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
