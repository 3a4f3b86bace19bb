import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceBusyError } from '../../src/errors.js';
import { WorkerPool } from '../../src/pipeline/worker-pool.js';
import type { PoolTask } from '../../src/pipeline/worker-pool.js';
import { until } from '../fixtures/until.js';

/** What test/fixtures/workers/scripted-worker.ts is told to do with a task. */
interface Script {
  do: 'answer' | 'throw' | 'spin' | 'exit' | 'allocate';
  value?: string;
}

function pool(threads: number, maxQueue = 8): WorkerPool<Script, { echo: string }> {
  return new WorkerPool({
    file: new URL('../fixtures/workers/scripted-worker.ts', import.meta.url),
    threads,
    maxQueue,
    resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
  });
}

const task = (script: Script): PoolTask<Script> => ({ input: script, started: false });
const startOf = async (running: PoolTask<Script>): Promise<void> => {
  while (!running.started) await new Promise((resolve) => setImmediate(resolve));
};
const answer = (value: string): PoolTask<Script> => task({ do: 'answer', value });

describe('worker pool', () => {
  test('answers every task, more tasks than workers, each with its own value', async (t) => {
    const p = pool(2, 16);
    t.after(() => p.close());
    const values = Array.from({ length: 12 }, (_, i) => `v${i}`);
    const results = await Promise.all(values.map((v) => p.run(answer(v), new AbortController().signal)));
    assert.deepEqual(
      results.map((r) => r.echo),
      values,
    );
    assert.equal(p.threads, 2);
    assert.equal(p.queued, 0);
  });

  test('past maxQueue waiting tasks a task is refused at once; the others are answered', async (t) => {
    const p = pool(1, 2);
    t.after(() => p.close());
    const signal = new AbortController().signal;
    const accepted = [p.run(answer('a'), signal), p.run(answer('b'), signal), p.run(answer('c'), signal)];
    await assert.rejects(p.run(answer('d'), signal), ServiceBusyError);
    assert.deepEqual(
      (await Promise.all(accepted)).map((r) => r.echo),
      ['a', 'b', 'c'],
    );
  });

  test('a task aborted while it waits never reaches a worker', async (t) => {
    const p = pool(1);
    t.after(() => p.close());
    const blocker = new AbortController();
    const spinning = task({ do: 'spin' });
    const running = p.run(spinning, blocker.signal);
    await startOf(spinning);
    const waiting = new AbortController();
    const queued = task({ do: 'answer', value: 'never' });
    const dropped = p.run(queued, waiting.signal);
    waiting.abort();
    await assert.rejects(dropped);
    assert.equal(queued.started, false);
    blocker.abort();
    await assert.rejects(running);
    assert.equal((await p.run(answer('after'), new AbortController().signal)).echo, 'after');
  });

  test('a running task aborted ends its worker; the next task runs on a new one', async (t) => {
    const p = pool(1);
    t.after(() => p.close());
    const abort = new AbortController();
    const spinning = task({ do: 'spin' });
    const running = p.run(spinning, abort.signal);
    const next = p.run(answer('next'), new AbortController().signal);
    await startOf(spinning);
    abort.abort(new Error('deadline'));
    await assert.rejects(running, /deadline/);
    assert.equal(spinning.started, true);
    assert.equal((await next).echo, 'next');
    assert.equal(p.threads, 1);
  });

  test('a thrown error, an exit and running out of memory fail their task alone', async (t) => {
    const p = pool(2);
    t.after(() => p.close());
    const signal = new AbortController().signal;
    await assert.rejects(p.run(task({ do: 'throw', value: 'broken page' }), signal), /broken page/);
    await assert.rejects(p.run(task({ do: 'exit' }), signal), /exited with code 3/);
    await assert.rejects(p.run(task({ do: 'allocate' }), signal), { code: 'ERR_WORKER_OUT_OF_MEMORY' });
    const results = await Promise.all(['x', 'y', 'z'].map((v) => p.run(answer(v), signal)));
    assert.deepEqual(
      results.map((r) => r.echo),
      ['x', 'y', 'z'],
    );
    assert.equal(p.threads, 2);
  });

  test('a pool closed while its workers still load ends them', async () => {
    for (let i = 0; i < 3; i++) await pool(2).close();
  });

  test('closing fails the tasks running and waiting', async () => {
    const p = pool(1);
    const signal = new AbortController().signal;
    const spinning = task({ do: 'spin' });
    const outcomes = Promise.allSettled([p.run(spinning, signal), p.run(answer('late'), signal)]);
    await startOf(spinning);
    await p.close();
    for (const outcome of await outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String(outcome.reason), /closed/);
    }
  });

  test('a worker that cannot start fails the task it was given, and is not restarted in a loop', async (t) => {
    const deaths: unknown[] = [];
    const p = new WorkerPool<Script, { echo: string }>({
      file: new URL('../fixtures/workers/broken-worker.mjs', import.meta.url),
      threads: 1,
      maxQueue: 8,
      resourceLimits: { maxOldGenerationSizeMb: 32 },
      onIdleWorkerDied: (reason) => deaths.push(reason),
    });
    t.after(() => p.close());
    // Its first worker dies idle; the slot waits a second before the next, and a task meanwhile waits for it.
    await until(
      async () => deaths.length,
      (n) => n > 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(deaths.length, 1, 'one worker started and died, not one after another');
    await assert.rejects(p.run(answer('x'), AbortSignal.timeout(300)));
    assert.match(String(deaths[0]), /cannot start/);
    assert.equal(p.threads, 1);
  });
});
