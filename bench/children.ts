import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serviceNodeFlags } from '../src/cli/service-process.js';

const ROOT = join(import.meta.dirname, '..');

/** The Node flags of `npm start` in the checkout at `root` (a build of another commit runs with its own). */
export const startFlags = (root: string): string[] =>
  serviceNodeFlags(pathToFileURL(join(root, 'package.json')));

/** The Node flags `npm start` runs the service with, so benches measure what runs. */
export const SERVICE_NODE_FLAGS = startFlags(ROOT);

/** The environment of a crawl bench's service: loopback allowed, no politeness delay, `concurrency` lanes. */
export function crawlBenchEnv(concurrency: number): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ALLOW_PRIVATE_NETWORKS: 'true',
    CRAWL_MIN_DELAY_MS: '0',
    CRAWL_CONCURRENCY: String(concurrency),
    CRAWL_HOST_CONCURRENCY: String(concurrency),
  };
}

/**
 * Starts a server script of this repository (built .js as is, .ts through tsx) on a loopback port and
 * resolves once it answers a POST on `readyPath`. Each has a data directory of its own, removed when it or
 * the bench exits, unless `env` names one: services started side by side would otherwise contend for
 * `./data` (one job store per directory), and a bench would write into the checkout's own.
 */
export async function startServer(
  script: string,
  port: number,
  env: Record<string, string> = {},
  readyPath = '/',
): Promise<ChildProcess> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(os.tmpdir(), 'pagewright-bench-'));
  const child = fork(join(ROOT, script), [], {
    execArgv: script.endsWith('.js') ? SERVICE_NODE_FLAGS : ['--import', 'tsx'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (env.DATA_DIR === undefined) {
    const remove = (): void => rmSync(dataDir, { recursive: true, force: true });
    // A bench that exits with its servers still up removes their directories as it goes.
    process.once('exit', remove);
    child.once('exit', () => {
      process.off('exit', remove);
      remove();
    });
  }
  const url = `http://127.0.0.1:${port}${readyPath}`;
  for (let i = 0; i < 150; i++) {
    try {
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill();
  throw new Error(`${script} did not start on port ${port}`);
}
