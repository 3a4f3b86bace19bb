import { existsSync, readFileSync } from 'node:fs';
import { GuardedProxy } from '../../engines/browser-proxy.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { GuardOptions } from '../../lib/ssrf-guard.js';
import { BrowserHost } from './browser-host.js';
import { SessionNamespaces } from './namespace.js';

/** BROWSER_SESSION_ISOLATION: a browser of its own per session in namespaces, one shared browser, or the first where it works. */
export type SessionIsolation = 'auto' | 'namespaces' | 'shared';

export interface SessionHostsOptions {
  executablePath: string;
  isolation: SessionIsolation;
  guard: GuardOptions;
  diskBytes: number;
  rendererHeapMb: number;
  log: Logger;
}

/** How long a browser launched ahead waits for the next session before it is closed. */
const SPARE_MS = 5 * 60_000;

/** Why this machine cannot make user namespaces, from what the kernel says, without making one; null when it may. */
function namespacesRefused(): string | null {
  const read = (file: string): string | null => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return null;
    }
  };
  if (read('/proc/sys/user/max_user_namespaces') === '0')
    return 'user namespaces are off (user.max_user_namespaces=0)';
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0' && process.getuid?.() !== 0) {
    return 'unprivileged user namespaces are off (kernel.unprivileged_userns_clone=0)';
  }
  if (!existsSync('/usr/bin/unshare') && !existsSync('/bin/unshare'))
    return 'util-linux unshare is not installed';
  return null;
}

/**
 * Where sessions' browsers come from. Isolated: each session launches a Chromium of its own in namespaces of its
 * own (host/namespace.ts) and closes it when it ends. Shared: one Chromium beside the service holds every
 * session's contexts, launched on the first session and again after it dies. `auto` isolates where the machine
 * can make the namespaces and says at start, and again at the first session, when it cannot.
 */
export class SessionHosts {
  private readonly proxy: GuardedProxy;
  private readonly namespaces = new SessionNamespaces();
  private decided: Promise<boolean> | null = null;
  private shared: Promise<BrowserHost> | null = null;
  private readonly own = new Set<BrowserHost>();
  /** A browser launched ahead for the next session, kept SPARE_MS after the last session started. */
  private spare: Promise<BrowserHost> | null = null;
  private spareTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: SessionHostsOptions) {
    this.proxy = new GuardedProxy(options.guard);
    if (options.isolation === 'shared') return;
    const refused = namespacesRefused();
    if (refused) {
      const then = options.isolation === 'auto' ? 'sessions share one browser' : 'sessions are refused (503)';
      options.log.warn({ reason: refused }, `browser sessions: no namespaces of their own here: ${then}`);
    }
  }

  /** Whether sessions get a browser of their own (decided once, at the first session). */
  isolated(): Promise<boolean> {
    this.decided ??= this.decide();
    return this.decided;
  }

  /**
   * A browser for one new session; give it back with `release`. Isolated, it is the spare launched after the
   * previous session started when that one is ready and alive (a session then starts in the time of a context,
   * not of a launch), and a new spare is launched for the next.
   */
  async acquire(): Promise<BrowserHost> {
    if (!(await this.isolated())) return this.sharedHost();
    // Taken before anything is awaited: two sessions starting at once never get the same browser.
    const spare = this.spare;
    this.spare = null;
    const ready = await spare?.catch(() => null);
    const host = ready && !ready.dead ? ready : await BrowserHost.launch(this.launchOptions(true));
    if (this.closed) {
      host.close();
      throw new ServiceUnavailableError('Browser sessions are closing with the service');
    }
    this.own.add(host);
    void host.exited.then(() => this.own.delete(host));
    this.warm();
    return host;
  }

  /** The session is over: its own browser ends; the shared one stays for the others. */
  release(host: BrowserHost): void {
    if (this.own.delete(host)) host.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.spareTimer) clearTimeout(this.spareTimer);
    (await this.spare?.catch(() => null))?.close();
    this.spare = null;
    for (const host of this.own) host.close();
    this.own.clear();
    const shared = await this.shared?.catch(() => null);
    this.shared = null;
    shared?.close();
    await this.proxy.close();
  }

  /** Launches the next session's browser now, and closes it if no session takes it within SPARE_MS. */
  private warm(): void {
    if (this.closed || this.spare) return;
    const spare = BrowserHost.launch(this.launchOptions(true));
    spare.catch(() => undefined);
    this.spare = spare;
    if (this.spareTimer) clearTimeout(this.spareTimer);
    this.spareTimer = setTimeout(() => {
      if (this.spare !== spare) return;
      this.spare = null;
      void spare.then(
        (host) => host.close(),
        () => undefined,
      );
    }, SPARE_MS);
    this.spareTimer.unref();
  }

  private async decide(): Promise<boolean> {
    const { isolation, log } = this.options;
    if (isolation === 'shared') return false;
    const why = await this.namespaces.unavailable();
    if (why === null) return true;
    if (isolation === 'namespaces') {
      throw new ServiceUnavailableError(
        `Browser sessions need namespaces of their own and none can be made here: ${why}`,
      );
    }
    log.warn(
      { reason: why },
      'browser sessions: no namespaces of their own here: sessions share one browser',
    );
    return false;
  }

  private sharedHost(): Promise<BrowserHost> {
    if (!this.shared) {
      const launched = BrowserHost.launch(this.launchOptions(false));
      this.shared = launched;
      const forget = (): void => {
        if (this.shared === launched) this.shared = null;
      };
      launched.then((host) => void host.exited.then(forget), forget);
    }
    return this.shared;
  }

  private launchOptions(isolated: boolean) {
    const { executablePath, diskBytes, rendererHeapMb } = this.options;
    return {
      executablePath,
      proxy: this.proxy,
      namespaces: isolated ? this.namespaces : null,
      diskBytes,
      rendererHeapMb,
    };
  }
}
