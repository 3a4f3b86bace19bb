import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** The browser process id, as Chromium reports it over CDP. */
export async function browserPid(browser: Browser): Promise<number | null> {
  const cdp = await browser.newBrowserCDPSession().catch(() => null);
  if (!cdp) return null;
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    return processInfo.find((p) => p.type === 'browser')?.id ?? null;
  } catch {
    return null;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** A process's group from /proc (field 5 of its stat; the command name before it may hold spaces). */
function processGroupOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) || null;
  } catch {
    return null; // not Linux, or already gone
  }
}

/**
 * Kills Chromium with everything it started. Playwright starts it as the leader of its own process group
 * (through Debian's wrapper script or directly), so the group takes the browser, its renderers and helpers.
 */
export function killProcessGroup(pid: number): void {
  const group = processGroupOf(String(pid));
  // Never our own group: that would kill this service.
  const targets = group !== null && group !== processGroupOf('self') ? [-group, pid] : [pid];
  for (const target of targets) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
