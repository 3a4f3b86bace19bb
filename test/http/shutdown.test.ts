import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { site } from '../helpers.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

/** Every process below `pid` (children, grandchildren...). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Running (a zombie waiting to be reaped by init does not count). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test(
  'SIGTERM: in-flight work finishes, the browser is closed, no Chromium process is left behind',
  { skip },
  async (t) => {
    const s = await site(t);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'main.ts')],
      {
        env: { ...process.env, PORT: '0', ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listen line: ${output}`)), 20_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const render = await fetch(`${base}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${s.url}/app/csr`, engine: 'browser' }),
    });
    assert.equal(render.status, 200);
    const browsers = descendants(child.pid!);
    assert.ok(browsers.length > 0, 'the browser runs under the service');
    const slow = fetch(`${base}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${s.url}/slow?ms=800`, engine: 'http', formats: [] }),
    });
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    assert.equal((await slow).status, 200, 'the request in flight was answered');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(code, 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(browsers.filter(alive), [], 'no orphan Chromium processes');
  },
);
