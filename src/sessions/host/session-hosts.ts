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

  /** A browser for one new session; give it back with `release`. */
  async acquire(): Promise<BrowserHost> {
    if (!(await this.isolated())) return this.sharedHost();
    const host = await BrowserHost.launch(this.launchOptions(true));
    this.own.add(host);
    void host.exited.then(() => this.own.delete(host));
    return host;
  }

  /** The session is over: its own browser ends; the shared one stays for the others. */
  release(host: BrowserHost): void {
    if (this.own.delete(host)) host.close();
  }

  async close(): Promise<void> {
    for (const host of this.own) host.close();
    this.own.clear();
    const shared = await this.shared?.catch(() => null);
    this.shared = null;
    shared?.close();
    await this.proxy.close();
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
