import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { personas } from './user-agent.js';
import type { Personas } from './user-agent.js';

/**
 * The Chromium version named when none can be read (no Chromium installed, or it would not say): the one the
 * README's install step ships at the time of writing, so the http engine still claims a current browser.
 */
export const FALLBACK_CHROMIUM_VERSION = '156.0.0.0';

/** Longest wait for `chromium --version`; it prints without starting a browser. */
const VERSION_TIMEOUT_MS = 10_000;

/** Versions read, by executable: every engine and session of the process names the same one. */
const versions = new Map<string, Promise<string>>();

/**
 * The version a Chromium executable prints with `--version` ("Chromium 156.0.8078.108 built on Debian …"),
 * read once per path. Debian's /usr/bin/chromium is a shell script that runs the real binary with the same
 * arguments, so the number is looked for anywhere in what it prints.
 */
export function chromiumVersion(executablePath: string): Promise<string> {
  let read = versions.get(executablePath);
  if (!read) {
    read = new Promise<string>((resolve) => {
      if (!existsSync(executablePath)) return resolve(FALLBACK_CHROMIUM_VERSION);
      execFile(executablePath, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (_err, stdout) => {
        resolve(/\b(\d{2,4}\.\d+\.\d+\.\d+)\b/.exec(String(stdout))?.[1] ?? FALLBACK_CHROMIUM_VERSION);
      });
    });
    versions.set(executablePath, read);
  }
  return read;
}

/**
 * Who the service says it is to targets (USER_AGENT): resolved once from the shipped Chromium's version, then
 * shared by the http engine, the browser engine and browser sessions.
 */
export class Identity {
  private resolved: Promise<Personas> | null = null;

  /**
   * @param setting USER_AGENT: `chromium`, `honest` or a User-Agent of the operator's
   * @param executablePath the Chromium whose version is named (null: none is installed)
   */
  constructor(
    private readonly setting: string,
    private readonly executablePath: string | null,
  ) {}

  /** The personas, read on first use (start it early with `personas()` to have them ready). */
  personas(): Promise<Personas> {
    this.resolved ??= (
      this.executablePath ? chromiumVersion(this.executablePath) : Promise.resolve(FALLBACK_CHROMIUM_VERSION)
    ).then((version) => personas(this.setting, version));
    return this.resolved;
  }
}
