import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { BrowserContext, Page } from 'playwright-core';
import { MOBILE } from '../engines/browser.js';
import type { Identity } from '../engines/identity.js';
import {
  type AppError,
  NotFoundError,
  ServiceBusyError,
  ServiceUnavailableError,
  SessionHeldElsewhereError,
  SessionLimitError,
} from '../errors.js';
import type {
  SessionEndCause,
  SessionRecord,
  SessionStore,
} from '../jobs/stores/browser-state/session-store.js';
import type { Profiles } from '../jobs/stores/browser-state/profile-store.js';
import { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Meter } from '../tenants/metering.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { CdpScope } from './cdp-filter.js';
import { SESSION_CLOSED, linkCdp } from './cdp-proxy.js';
import type { CdpClientSocket, CdpLink } from './cdp-proxy.js';
import type { BrowserHost } from './host/browser-host.js';
import type { PageTarget } from './host/cdp-mux.js';
import { SessionHosts } from './host/session-hosts.js';
import type { SessionIsolation } from './host/session-hosts.js';
import { startLiveView } from './live-view.js';
import type { LiveViewerSocket } from './live-view.js';
import { bounded, closeSession, currentPage } from './session-end.js';
import { noProfile } from '../jobs/profile-session.js';
import { DEFAULT_OWNER, SessionOwners } from './session-owners.js';
import {
  HEARTBEAT_MS,
  activeRecord,
  endLost,
  endedError,
  endedRecord,
  shownRecord,
} from './session-record.js';
import { canSee } from '../tenants/tenant.js';
import type { Caller, LimitsOf } from '../tenants/tenant.js';

/** What a session is started with (the surface's request, its defaults applied). */
export interface SessionOptions {
  /** Seconds the session lives at most. */
  ttl: number;
  /** Seconds without a CDP message or command before it ends. */
  activityTtl: number;
  /**
   * The caller's tenant: counted against MAX_SESSIONS_PER_TENANT, the only one (with operators) that reaches
   * the session, and whose profile `profile` names (saved back as its own).
   */
  owner?: string;
  profile?: { name: string; saveChanges?: boolean };
  /** A phone's screen, touch and User-Agent (an interact reopening a scrape with `mobile`). */
  mobile?: boolean;
  /** Accept any TLS certificate (an interact reopening a scrape with `skipTlsVerification`). */
  skipTlsVerification?: boolean;
}

/** The caps of one session and of one key, and how sessions' browsers are isolated. */
export interface SessionLimits {
  maxSessions: number;
  /** Each tenant's limits (`sessions` it may hold across the fleet). */
  limitsOf: LimitsOf;
  isolation: SessionIsolation;
  /** A session's browser past this (its processes' proportional set size) is ended. */
  memoryBytes: number;
  /** The tmpfs that is an isolated browser's whole disk. */
  diskBytes: number;
  /** Contexts a session's clients may add, and pages open at once in a session. */
  maxContexts: number;
  maxPages: number;
}

export interface SessionDeps {
  store: SessionStore;
  profiles: Profiles;
  guard: GuardOptions;
  /** Chromium; null when it is not installed (every session request is then a 503). */
  executablePath: string | null;
  limits: SessionLimits;
  /** Who the sessions' pages say they are (USER_AGENT), as the browser engine's do. */
  identity: Identity;
  metrics: Metrics;
  /** Where a session's lifetime counts as browser time, to its owner, when it ends (src/tenants/usage.ts). */
  meter?: Meter;
  /** Where the fleet reaches this process (ADVERTISE_URL with FLEET_SECRET), recorded with its sessions. */
  advertiseUrl?: string | null;
  log: Logger;
}

/** Activity is written to the store at most this often (it is read by lists, not by the idle check). */
const ACTIVITY_WRITE_MS = 5000;
const SWEEP_MS = 1000;
/** How often the records past their `keepUntil` are dropped from the store. */
const PURGE_MS = 600_000;
/** CDP clients and live viewers connected to one session at once. */
const MAX_LINKS = 8;

interface LiveSession {
  record: SessionRecord;
  host: BrowserHost;
  context: BrowserContext;
  scope: CdpScope;
  links: Set<CdpLink>;
  saveTo: string | null;
  /** When `lastActivity` was last written to the store. */
  written: number;
  ending: Promise<SessionRecord> | null;
}

const mib = (bytes: number): number => Math.round(bytes / 1048576);

/**
 * Browser sessions: each a context of a Chromium whose only way out is the guarded proxy (its own Chromium in
 * namespaces of its own, or one shared by the sessions: SessionHosts), driven over CDP (the filtering proxy,
 * cdp-proxy.ts) or by the service's own commands (`withPage`). A session ends at its `ttl`, after
 * `activityTtl` without activity, on DELETE, when its browser dies or outgrows its memory, or when its process
 * stops; its browser (or context) is closed, its slot freed, its profile saved if asked, and its record (in the
 * job store, listed by every process) marked destroyed with the cause.
 */
export class BrowserSessions {
  /** This process, as records name it: host, pid and an id of this life (a pid is reused after a restart). */
  readonly holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly live = new Map<string, LiveSession>();
  private readonly owners: SessionOwners;
  private readonly slots: Gate;
  private readonly hosts: SessionHosts | null;
  private readonly timer: NodeJS.Timeout;
  private purgedAt = 0;

  constructor(private readonly deps: SessionDeps) {
    const { limits } = deps;
    this.slots = new Gate('browser session', limits.maxSessions, 0);
    this.owners = new SessionOwners(limits.limitsOf);
    this.hosts =
      deps.executablePath && limits.maxSessions > 0
        ? new SessionHosts({
            executablePath: deps.executablePath,
            isolation: limits.isolation,
            guard: deps.guard,
            diskBytes: limits.diskBytes,
            rendererHeapMb: Math.max(128, mib(limits.memoryBytes / 2)),
            log: deps.log,
          })
        : null;
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
    deps.metrics.watchSessions(() => this.live.size);
  }

  /** Sessions open in this process. */
  get active(): number {
    return this.live.size;
  }

  async create(options: SessionOptions): Promise<SessionRecord> {
    const { limits } = this.deps;
    if (limits.maxSessions === 0)
      throw new ServiceUnavailableError('Browser sessions are off (MAX_BROWSER_SESSIONS=0)');
    if (!this.hosts) throw new ServiceUnavailableError('Browser sessions need Chromium (CHROMIUM_PATH)');
    const owner = options.owner ?? DEFAULT_OWNER;
    // Counted when asked: the slot and the key's count are taken before anything is awaited.
    const entered = this.slots.enter();
    this.owners.take(owner);
    let slot = false;
    let host: BrowserHost | null = null;
    let context: BrowserContext | null = null;
    try {
      await entered.catch((err: unknown) => {
        if (!(err instanceof ServiceBusyError)) throw err;
        throw new SessionLimitError(
          `${limits.maxSessions} browser sessions are open in this process (MAX_BROWSER_SESSIONS); end one first`,
        );
      });
      slot = true;
      await this.owners.check(owner, () => this.heldElsewhere());
      const { profile } = options;
      const state = profile ? await this.deps.profiles.state(owner, profile.name) : null;
      if (profile && state === null && !profile.saveChanges) throw noProfile(profile.name);
      host = await this.hosts.acquire();
      const personas = await this.deps.identity.personas();
      context = await host.browser.newContext({
        userAgent: (options.mobile ? personas.mobile : personas.desktop).userAgent,
        viewport: { width: 1280, height: 800 },
        ...(options.mobile ? MOBILE : {}),
        ...(options.skipTlsVerification ? { ignoreHTTPSErrors: true } : {}),
        acceptDownloads: false,
        proxy: { server: host.proxyServer },
        ...(state ? { storageState: state } : {}),
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      await cdp.detach();
      const session = this.open(options, owner, host, context, targetInfo.browserContextId!);
      await this.deps.store.put(session.record);
      this.deps.metrics.sessionCreated();
      this.deps.log.info({ session: session.record.id, ttl: options.ttl, owner }, 'browser session started');
      return { ...session.record };
    } catch (err) {
      if (host) {
        await context?.close().catch(() => undefined);
        this.hosts.release(host);
      }
      if (slot) this.slots.leave();
      this.owners.give(owner);
      throw err;
    }
  }

  /**
   * The records `caller` may see (its tenant's; an operator's, every one) with `status` (every one without),
   * newest first; a record its holder left behind shows ended.
   */
  async list(
    status: SessionRecord['status'] | undefined,
    caller: Caller,
    now = Date.now(),
  ): Promise<SessionRecord[]> {
    const records = (await this.deps.store.list()).filter((r) => canSee(caller, r.owner));
    const shown = records.map((r) => this.orphanEnded(r, now));
    return shown.filter((r) => status === undefined || r.status === status);
  }

  /** One session's record; 404 when there is none, or it is another tenant's (the same answer). */
  async get(id: string, caller: Caller, now = Date.now()): Promise<SessionRecord> {
    const local = this.live.get(id);
    const record = local ? { ...local.record } : await this.deps.store.get(id);
    if (!record || !canSee(caller, record.owner)) throw new NotFoundError(`Browser session ${id} not found`);
    return local ? record : this.orphanEnded(record, now);
  }

  /** Ends a session of this process (DELETE): its record, destroyed, with the cause. */
  async end(id: string, cause: SessionEndCause, caller: Caller): Promise<SessionRecord> {
    return this.end_(await this.local(id, caller), cause);
  }

  /**
   * Runs `use` on the session's current page (the last one open in its context; a new one when all were
   * closed). It counts as activity. The page belongs to the session: `use` must not close its context.
   */
  async withPage<T>(id: string, caller: Caller, use: (page: Page) => Promise<T>): Promise<T> {
    const session = await this.local(id, caller);
    this.touch(session);
    const page = await currentPage(session.context);
    try {
      return await use(page);
    } finally {
      this.touch(session);
    }
  }

  /** Shows the session's current page to a live viewer (live-view.ts); only an interactive one's input is activity. */
  async connectLive(
    id: string,
    viewer: LiveViewerSocket,
    interactive: boolean,
    caller: Caller,
  ): Promise<void> {
    const session = await this.local(id, caller);
    this.reserveLink(session);
    const source = {
      page: async () => currentPage((await this.local(id, caller)).context),
      activity: () => this.touch(session),
    };
    const link = startLiveView(viewer, source, { interactive });
    session.links.add(link);
    void link.closed.then(() => session.links.delete(link));
  }

  /** Joins a client's WebSocket to the session's browser, filtered to the session's contexts. */
  async connectCdp(id: string, client: CdpClientSocket, caller: Caller): Promise<void> {
    const session = await this.local(id, caller);
    this.reserveLink(session);
    this.touch(session);
    const link = linkCdp(client, session.host.channel(), session.scope, {
      activity: () => this.touch(session),
      refused: (method, reason) => {
        this.deps.metrics.cdpRefused();
        this.deps.log.debug({ session: id, method, reason }, 'CDP command refused');
      },
    });
    session.links.add(link);
    void link.closed.then(() => session.links.delete(link));
  }

  /** Ends the sessions of this process past their `ttl`, idle past their `activityTtl`, or over their memory. */
  async sweep(now = Date.now()): Promise<void> {
    const ending: Promise<unknown>[] = [];
    const { memoryBytes } = this.deps.limits;
    for (const session of this.live.values()) {
      const { record } = session;
      // In a fleet, the others know this process holds its sessions by this heartbeat (session-record.ts).
      if (this.deps.advertiseUrl && now - (record.aliveAt ?? 0) >= HEARTBEAT_MS) {
        record.aliveAt = now;
        ending.push(this.deps.store.put({ ...record }).catch(() => undefined));
      }
      if (now >= record.expiresAt) ending.push(this.end_(session, 'ttl'));
      else if (now - record.lastActivity >= record.activityTtl * 1000)
        ending.push(this.end_(session, 'idle'));
      else if (session.host.isolated) {
        const used = session.host.memoryBytes();
        if (used > memoryBytes) {
          const detail = `its browser used ${mib(used)} MiB, over MAX_SESSION_MEMORY_MB (${mib(memoryBytes)})`;
          ending.push(this.end_(session, 'memory', detail));
        }
      }
    }
    if (now - this.purgedAt >= PURGE_MS) {
      this.purgedAt = now;
      ending.push(this.deps.store.purge(now).catch(() => 0));
    }
    await Promise.all(ending);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.live.values()].map((s) => this.end_(s, 'shutdown')));
    await this.hosts?.close();
  }

  /** The session in this process's map, with its scope counting its pages and closing the ones past its cap. */
  private open(
    options: SessionOptions,
    owner: string,
    host: BrowserHost,
    context: BrowserContext,
    primary: string,
  ): LiveSession {
    const now = Date.now();
    const { limits } = this.deps;
    const spec = { ...options, holder: this.holder, holderUrl: this.deps.advertiseUrl ?? null, owner };
    const record = activeRecord(randomUUID(), { ...spec, profile: options.profile?.name ?? null }, now);
    const scope: CdpScope = {
      primary,
      extra: new Set(),
      maxContexts: limits.maxContexts,
      pendingContexts: 0,
      maxPages: limits.maxPages,
      pendingPages: 0,
      openPages: () => host.mux.pagesOf(new Set([primary, ...scope.extra])).length,
      proxyServer: host.proxyServer,
    };
    const session: LiveSession = {
      record,
      host,
      context,
      scope,
      links: new Set(),
      saveTo: options.profile?.saveChanges ? options.profile.name : null,
      written: now,
      ending: null,
    };
    this.live.set(record.id, session);
    host.mux.onPage ??= (page) => this.pageOpened(host, page);
    void host.exited.then((why) => {
      for (const s of this.live.values()) {
        if (s.host === host) void this.end_(s, 'crashed', why);
      }
    });
    return session;
  }

  /** A page past its session's MAX_SESSION_PAGES (a popup, or one Playwright opened) is closed at once. */
  private pageOpened(host: BrowserHost, page: PageTarget): void {
    for (const session of this.live.values()) {
      const { scope } = session;
      if (session.host !== host) continue;
      if (page.browserContextId !== scope.primary && !scope.extra.has(page.browserContextId)) continue;
      if (scope.openPages() <= scope.maxPages) return;
      this.deps.log.info(
        { session: session.record.id, maxPages: scope.maxPages },
        'browser session: a page past MAX_SESSION_PAGES closed',
      );
      host.mux.closePage(page);
      return;
    }
  }

  /** Active sessions other processes hold (their holders alive). */
  private async heldElsewhere(now = Date.now()): Promise<SessionRecord[]> {
    const active = await this.deps.store.list('active');
    return active.filter((r) => r.holder !== this.holder && this.orphanEnded(r, now).status === 'active');
  }

  /** Refuses a connection past MAX_LINKS; the caller adds its link before it awaits anything. */
  private reserveLink(session: LiveSession): void {
    if (session.links.size >= MAX_LINKS) {
      throw new SessionLimitError(
        `Browser session ${session.record.id} has ${MAX_LINKS} connections already`,
      );
    }
  }

  /**
   * The session if this process holds it; else why not: ended, held by another process, or unknown. Another
   * tenant's is unknown (404) before anything else is said of it.
   */
  private async local(id: string, caller: Caller): Promise<LiveSession> {
    const session = this.live.get(id);
    if (session && !canSee(caller, session.record.owner))
      throw new NotFoundError(`Browser session ${id} not found`);
    if (session && !session.ending) return session;
    const record = session?.record ?? (await this.get(id, caller));
    if (record.status === 'destroyed' || session?.ending) throw endedError(record);
    // This process's own address under another life's holder: the process that held it is gone.
    const advertised = this.deps.advertiseUrl;
    if (advertised && record.holderUrl === advertised)
      throw await this.holderLost(id, advertised, `its process ${record.holder} restarted`);
    throw new SessionHeldElsewhereError(
      `Browser session ${id} is held by process ${record.holder}; send the request to that process`,
      id,
      record.holderUrl ?? null,
    );
  }

  /** Ends the record of a session whose holder is gone (session-record.ts, endLost); every process answers 410. */
  holderLost(id: string, holderUrl: string, why: string): Promise<AppError> {
    return endLost(this.deps.store, id, holderUrl, why, this.deps.log);
  }

  private touch(session: LiveSession): void {
    const now = Date.now();
    session.record.lastActivity = now;
    if (now - session.written < ACTIVITY_WRITE_MS || session.ending) return;
    session.written = now;
    void this.deps.store.put({ ...session.record }).catch(() => undefined);
  }

  private orphanEnded(record: SessionRecord, now: number): SessionRecord {
    return shownRecord(record, this.holder, this.live.get(record.id)?.record, now);
  }

  private end_(session: LiveSession, cause: SessionEndCause, detail?: string): Promise<SessionRecord> {
    if (!session.ending) {
      // Known at once: every request from now on is told why, before the browser is even closed.
      session.record.endCause = cause;
      session.record.endDetail = detail ?? null;
      session.ending = this.finish(session, cause, detail ?? null);
    }
    return session.ending;
  }

  private async finish(
    session: LiveSession,
    cause: SessionEndCause,
    detail: string | null,
  ): Promise<SessionRecord> {
    const { record } = session;
    const { log } = this.deps;
    try {
      for (const link of session.links) link.close(SESSION_CLOSED, `session ended (${cause})`);
      if (session.saveTo && cause !== 'crashed') {
        const state = await bounded(session.context.storageState()).catch(() => null);
        if (state) await this.deps.profiles.save(record.owner ?? DEFAULT_OWNER, session.saveTo, state);
        else log.warn({ session: record.id, profile: session.saveTo }, 'browser session: profile not saved');
      }
      const closed = await closeSession(session.host, session.context, session.scope.extra);
      if (!closed) log.warn({ session: record.id }, 'browser session: its context did not close in time');
    } finally {
      this.live.delete(record.id);
      this.hosts!.release(session.host);
      this.slots.leave();
      this.owners.give(record.owner ?? DEFAULT_OWNER);
    }
    const now = Date.now();
    const ended = endedRecord(record, cause, detail, now);
    this.deps.meter?.add(record.owner ?? DEFAULT_OWNER, { browserMs: now - record.createdAt });
    this.deps.metrics.sessionEnded(cause);
    log.info({ session: record.id, cause, detail, ms: now - record.createdAt }, 'browser session ended');
    await this.deps.store.put(ended).catch((err: unknown) => {
      log.warn({ session: record.id, err }, 'browser session: record not written');
    });
    return { ...ended };
  }
}
