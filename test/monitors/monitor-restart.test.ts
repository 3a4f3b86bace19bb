import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startChangingSite } from '../fixtures/sites/changing-site.js';
import { freePort } from '../fixtures/free-port.js';
import { spawnService } from '../fixtures/service-process.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** The monitor below ticks every second: as close as cron allows. */
const EVERY_SECOND_ALLOWED = { MIN_MONITOR_INTERVAL_SECONDS: '1' };

type Check = { status: string; trigger: string; scheduledFor: string; createdAt: string };

describe('a monitor survives kill -9 of its only process', () => {
  test('ticks missed while the process was down run once at the next start, not once per missed tick', async (t) => {
    const site = await startChangingSite({ '/price': 'The Rocket costs 10 EUR.' });
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-monitor-crash-'));
    const children: ChildProcess[] = [];
    t.after(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await site.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    children.push(await spawnService(dataDir, port, EVERY_SECOND_ALLOWED));
    const created = (await (
      await fetch(`${base}/v2/monitor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'every second',
          schedule: { cron: '* * * * * *' },
          targets: [{ type: 'scrape', urls: [`${site.url}/price`] }],
        }),
      })
    ).json()) as { data: { id: string } };
    const checks = async (): Promise<Check[]> =>
      (
        (await (await fetch(`${base}/v2/monitor/${created.data.id}/checks?limit=100`)).json()) as {
          data: Check[];
        }
      ).data;
    for (let i = 0; i < 1200 && (await checks()).length === 0; i++) await sleep(100);
    children[0]!.kill('SIGKILL');
    await new Promise((resolve) => children[0]!.once('exit', resolve));
    const downFrom = Date.now();
    await sleep(4000); // four ticks or so go by with no process
    const restartAt = Date.now();
    children.push(await spawnService(dataDir, port, EVERY_SECOND_ALLOWED));
    const upAt = Date.now();
    let after: Check[] = [];
    for (let i = 0; i < 1200; i++) {
      after = await checks();
      if (after.some((c) => Date.parse(c.scheduledFor) >= upAt)) break;
      await sleep(100);
    }
    // Made by the new process for a tick of the time no process ran.
    const missed = after.filter(
      (c) => Date.parse(c.createdAt) > downFrom && Date.parse(c.scheduledFor) < restartAt,
    );
    assert.equal(
      missed.length,
      1,
      `one check for the ticks missed: ${after.map((c) => c.scheduledFor).join(', ')}`,
    );
    const ticks = after.map((c) => c.scheduledFor);
    assert.equal(new Set(ticks).size, ticks.length, 'no tick fired twice');
  });
});
