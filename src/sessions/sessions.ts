import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { BrowserContext, Page } from 'playwright-core';
import { MOBILE } from '../engines/browser.js';
import { GuardedProxy } from '../engines/browser-proxy.js';
import { mobileUserAgent } from '../engines/user-agent.js';
import {
  NotFoundError,
  ServiceBusyError,
  ServiceUnavailableError,
  SessionEndedError,
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
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { CdpScope } from './cdp-filter.js';
import { SESSION_CLOSED, linkCdp } from './cdp-proxy.js';
import type { CdpClientSocket, CdpLink } from './cdp-proxy.js';
import { startLiveView } from './live-view.js';
import type { LiveViewerSocket } from './live-view.js';
import { SessionBrowser } from './session-browser.js';

/** What a session is started with (the surface's request, its defaults applied). */
export interface SessionOptions {
  /** Seconds the session lives at most. */
  ttl: number;
  /** Seconds without a CDP message or command before it ends. */
  activityTtl: number;
  profile?: { name: string; saveChanges?: boolean };
  /** A phone's screen, touch and User-Agent (an interact reopening a scrape with `mobile`). */
  mobile?: boolean;
  /** Accept any TLS certificate (an interact reopening a scrape with `skipTlsVerification`). */
  skipTlsVerification?: boolean;
}

export interface SessionDeps {
  store: SessionStore;
  profiles: Profiles;
  guard: GuardOptions;
  /** Chromium; null when it is not installed (every session request is then a 503). */
  executablePath: string | null;
  maxSessions: number;
  userAgent: string;
  metrics: Metrics;
  log: Logger;
}

/** How long an ended session's record stays listed (`?status=destroyed`). */
const RETAIN_MS = 24 * 3_600_000;
/** Activity is written to the store at most this often (it is read by lists, not by the idle check). */
const ACTIVITY_WRITE_MS = 5000;
/** A holder that has not ended its session this long after its `ttl` is gone: the record says so. */
const ORPHAN_GRACE_MS = 60_000;
const SWEEP_MS = 1000;
/** How often the records past their `keepUntil` are dropped from the store. */
const PURGE_MS = 600_000;
const CLOSE_GRACE_MS = 5000;
/** CDP clients and live viewers connected to one session at once, and contexts its clients may add. */
const MAX_LINKS = 8;
const MAX_EXTRA_CONTEXTS = 4;

interface LiveSession {
  record: SessionRecord;
  context: BrowserContext;
  scope: CdpScope;
  endpoint: string;
  links: Set<CdpLink>;
  saveTo: string | null;
  /** When `lastActivity` was last written to the store. */
  written: number;
  ending: Promise<SessionRecord> | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The session's current page: the last one open in its context, or a new one when all were closed. */
async function currentPage(session: LiveSession): Promise<Page> {
  return (
    session.context
      .pages()
      .filter((p) => !p.isClosed())
      .at(-1) ?? (await session.context.newPage())
  );
}

/**
 * Browser sessions: each a context of the sessions' own Chromium (SessionBrowser), its network through the
 * same guarded proxy as the browser engine, driven over CDP (the filtering proxy, cdp-proxy.ts) or by the
 * service's own commands (`withPage`). A session ends at its `ttl`, after `activityTtl` without activity, on
 * DELETE, or when its process stops; its context is closed, its slot freed, its profile saved if asked, and
 * its record (in the job store, listed by every process) marked destroyed with the cause.
 */
export class BrowserSessions {
  /** This process, as records name it: host, pid and an id of this life (a pid is reused after a restart). */
  readonly holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly live = new Map<string, LiveSession>();
  private readonly slots: Gate;
  private readonly browser: SessionBrowser | null;
  private readonly proxy: GuardedProxy;
  private readonly timer: NodeJS.Timeout;
  private purgedAt = 0;

  constructor(private readonly deps: SessionDeps) {
    this.slots = new Gate('browser session', deps.maxSessions, 0);
    this.browser = deps.executablePath
      ? new SessionBrowser({ executablePath: deps.executablePath, log: deps.log })
      : null;
    this.proxy = new GuardedProxy(deps.guard);
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
    deps.metrics.watchSessions(() => this.live.size);
  }

  /** Sessions open in this process. */
  get active(): number {
    return this.live.size;
  }

  async create(options: SessionOptions): Promise<SessionRecord> {
    if (!this.browser) throw new ServiceUnavailableError('Browser sessions need Chromium (CHROMIUM_PATH)');
    if (this.deps.maxSessions === 0)
      throw new ServiceUnavailableError('Browser sessions are off (MAX_BROWSER_SESSIONS=0)');
    try {
      await this.slots.enter();
    } catch (err) {
      if (!(err instanceof ServiceBusyError)) throw err;
      throw new SessionLimitError(
        `${this.deps.maxSessions} browser sessions are open in this process (MAX_BROWSER_SESSIONS); end one first`,
      );
    }
    let context: BrowserContext | null = null;
    try {
      const { profile } = options;
      const state = profile ? await this.deps.profiles.state(profile.name) : null;
      if (profile && state === null && !profile.saveChanges) {
        throw new NotFoundError(
          `profile.name: no profile '${profile.name}' on this server (save one with saveChanges: true)`,
        );
      }
      const launched = await this.browser.get();
      const proxyServer = await this.proxy.url();
      context = await launched.browser.newContext({
        userAgent: this.deps.userAgent,
        viewport: { width: 1280, height: 800 },
        ...(options.mobile ? { ...MOBILE, userAgent: mobileUserAgent(this.deps.userAgent) } : {}),
        ...(options.skipTlsVerification ? { ignoreHTTPSErrors: true } : {}),
        acceptDownloads: false,
        proxy: { server: proxyServer },
        ...(state ? { storageState: state } : {}),
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      await cdp.detach();
      const now = Date.now();
      const record: SessionRecord = {
        id: randomUUID(),
        status: 'active',
        createdAt: now,
        expiresAt: now + options.ttl * 1000,
        lastActivity: now,
        ttl: options.ttl,
        activityTtl: options.activityTtl,
        holder: this.holder,
        profile: profile?.name ?? null,
        endedAt: null,
        endCause: null,
        keepUntil: now + options.ttl * 1000 + RETAIN_MS,
      };
      const scope: CdpScope = {
        primary: targetInfo.browserContextId!,
        extra: new Set(),
        maxExtra: MAX_EXTRA_CONTEXTS,
        proxyServer,
      };
      await this.deps.store.put(record);
      this.live.set(record.id, {
        record,
        context,
        scope,
        endpoint: launched.endpoint,
        links: new Set(),
        saveTo: profile?.saveChanges ? profile.name : null,
        written: now,
        ending: null,
      });
      this.deps.metrics.sessionCreated();
      this.deps.log.info({ session: record.id, ttl: options.ttl }, 'browser session started');
      return { ...record };
    } catch (err) {
      await context?.close().catch(() => undefined);
      this.slots.leave();
      throw err;
    }
  }

  /** The records with `status` (every one without), newest first; a record its holder left behind shows ended. */
  async list(status?: SessionRecord['status'], now = Date.now()): Promise<SessionRecord[]> {
    const records = await this.deps.store.list();
    const shown = records.map((r) => this.orphanEnded(r, now));
    return shown.filter((r) => status === undefined || r.status === status);
  }

  /** One session's record (404 when there is none). */
  async get(id: string, now = Date.now()): Promise<SessionRecord> {
    const local = this.live.get(id);
    if (local) return { ...local.record };
    const record = await this.deps.store.get(id);
    if (!record) throw new NotFoundError(`Browser session ${id} not found`);
    return this.orphanEnded(record, now);
  }

  /** Ends a session of this process (DELETE): its record, destroyed, with the cause. */
  async end(id: string, cause: SessionEndCause = 'deleted'): Promise<SessionRecord> {
    return this.end_(await this.local(id), cause);
  }

  /**
   * Runs `use` on the session's current page (the last one open in its context; a new one when all were
   * closed). It counts as activity. The page belongs to the session: `use` must not close its context.
   */
  async withPage<T>(id: string, use: (page: Page) => Promise<T>): Promise<T> {
    const session = await this.local(id);
    this.touch(session);
    const page = await currentPage(session);
    try {
      return await use(page);
    } finally {
      this.touch(session);
    }
  }

  /** Shows the session's current page to a live viewer (live-view.ts); only an interactive one's input is activity. */
  async connectLive(id: string, viewer: LiveViewerSocket, interactive: boolean): Promise<void> {
    const session = await this.local(id);
    if (session.links.size >= MAX_LINKS) {
      throw new SessionLimitError(`Browser session ${id} has ${MAX_LINKS} connections already`);
    }
    const source = {
      page: async () => currentPage(await this.local(id)),
      activity: () => this.touch(session),
    };
    const link = startLiveView(viewer, source, { interactive });
    session.links.add(link);
    void link.closed.then(() => session.links.delete(link));
  }

  /** Joins a client's WebSocket to the session's CDP, filtered to the session's contexts. */
  async connectCdp(id: string, client: CdpClientSocket): Promise<void> {
    const session = await this.local(id);
    if (session.links.size >= MAX_LINKS) {
      throw new SessionLimitError(`Browser session ${id} has ${MAX_LINKS} CDP connections already`);
    }
    this.touch(session);
    const link = linkCdp(client, session.endpoint, session.scope, {
      activity: () => this.touch(session),
      refused: (method, reason) => {
        this.deps.metrics.cdpRefused();
        this.deps.log.debug({ session: id, method, reason }, 'CDP command refused');
      },
    });
    session.links.add(link);
    void link.closed.then(() => session.links.delete(link));
  }

  /** Ends the sessions of this process past their `ttl` or idle past their `activityTtl` at `now`. */
  async sweep(now = Date.now()): Promise<void> {
    const ending: Promise<unknown>[] = [];
    for (const session of this.live.values()) {
      const { record } = session;
      if (now >= record.expiresAt) ending.push(this.end_(session, 'ttl'));
      else if (now - record.lastActivity >= record.activityTtl * 1000)
        ending.push(this.end_(session, 'idle'));
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
    await this.browser?.close();
    await this.proxy.close();
  }

  /** The session if this process holds it; else why not: ended, held by another process, or unknown. */
  private async local(id: string): Promise<LiveSession> {
    const session = this.live.get(id);
    if (session && !session.ending) return session;
    const record = session?.record ?? (await this.get(id));
    if (record.status === 'destroyed' || session?.ending) {
      const when = record.endedAt ? ` at ${iso(record.endedAt)}` : '';
      throw new SessionEndedError(`Browser session ${id} ended${when} (${record.endCause ?? 'ending'})`);
    }
    throw new SessionHeldElsewhereError(
      `Browser session ${id} is held by process ${record.holder}; send the request to that process`,
    );
  }

  private touch(session: LiveSession): void {
    const now = Date.now();
    session.record.lastActivity = now;
    if (now - session.written < ACTIVITY_WRITE_MS || session.ending) return;
    session.written = now;
    void this.deps.store.put({ ...session.record }).catch(() => undefined);
  }

  /** An active record whose holder is this process but not the session, or a holder gone long past its ttl. */
  private orphanEnded(record: SessionRecord, now: number): SessionRecord {
    if (record.status !== 'active') return record;
    const ours = record.holder === this.holder;
    if (ours && this.live.has(record.id)) return { ...this.live.get(record.id)!.record };
    if (!ours && now < record.expiresAt + ORPHAN_GRACE_MS) return record;
    return {
      ...record,
      status: 'destroyed',
      endedAt: Math.min(now, record.expiresAt),
      endCause: ours ? 'error' : 'ttl',
    };
  }

  private end_(session: LiveSession, cause: SessionEndCause): Promise<SessionRecord> {
    session.ending ??= this.finish(session, cause);
    return session.ending;
  }

  private async finish(session: LiveSession, cause: SessionEndCause): Promise<SessionRecord> {
    const { record, context } = session;
    const { log } = this.deps;
    try {
      for (const link of session.links) link.close(SESSION_CLOSED, `session ended (${cause})`);
      if (session.saveTo) {
        try {
          await this.deps.profiles.save(session.saveTo, await context.storageState());
        } catch (err) {
          log.warn(
            { session: record.id, profile: session.saveTo, err },
            'browser session: profile not saved',
          );
        }
      }
      await this.closeContexts(session);
    } finally {
      this.live.delete(record.id);
      this.slots.leave();
    }
    const now = Date.now();
    const ended: SessionRecord = {
      ...record,
      status: 'destroyed',
      endedAt: now,
      endCause: cause,
      keepUntil: now + RETAIN_MS,
    };
    this.deps.metrics.sessionEnded(cause);
    log.info({ session: record.id, cause, ms: now - record.createdAt }, 'browser session ended');
    await this.deps.store.put(ended).catch((err: unknown) => {
      log.warn({ session: record.id, err }, 'browser session: record not written');
    });
    return { ...ended };
  }

  /** Closes the session's contexts (those its clients created too) within the grace period. */
  private async closeContexts(session: LiveSession): Promise<void> {
    const work = (async () => {
      const launched = await this.browser!.get();
      if (session.scope.extra.size > 0) {
        const cdp = await launched.browser.newBrowserCDPSession();
        for (const browserContextId of session.scope.extra) {
          await cdp.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
        }
        await cdp.detach().catch(() => undefined);
      }
      await session.context.close();
    })();
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      work.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS))),
    ]).catch(() => true);
    clearTimeout(timer);
    if (!closed) {
      this.deps.log.warn(
        { session: session.record.id },
        'browser session: its context did not close in time',
      );
    }
  }
}
