import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceBusyError } from '../../src/errors.js';
import { Gate } from '../../src/lib/gate.js';
import { mapWithLimit } from '../../src/lib/map-limit.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Gate, the one concurrency primitive', () => {
  test('failure paths first: a full queue refuses at once; an abandoned waiter leaves the queue; an aborted signal never waits', async () => {
    const gate = new Gate('test', 1, 1);
    await gate.enter();
    const controller = new AbortController();
    const queued = gate.enter(controller.signal);
    await assert.rejects(gate.enter(), ServiceBusyError, 'one waiting is the limit');
    controller.abort();
    await assert.rejects(queued, ServiceBusyError);
    assert.equal(gate.waiting, 0);
    await assert.rejects(gate.enter(AbortSignal.abort()), ServiceBusyError);
    gate.leave();
    assert.equal(gate.active, 0);
    await gate.enter(); // the slot is free again
    assert.equal(gate.active, 1);
  });

  test('a failing holder releases its slot; waiters are woken in arrival order', async () => {
    const gate = new Gate('test', 1, 10);
    await assert.rejects(
      gate.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(gate.active, 0);
    const order: number[] = [];
    await gate.enter();
    const waiters = [1, 2, 3].map((n) => gate.run(async () => void order.push(n)));
    await tick();
    assert.equal(gate.waiting, 3);
    gate.leave();
    await Promise.all(waiters);
    assert.deepEqual(order, [1, 2, 3]);
  });
});

describe('mapWithLimit', () => {
  test('failure path first: a throwing call stops new calls and the map rejects once calls in flight settle', async () => {
    const started: number[] = [];
    let inFlight = 0;
    await assert.rejects(
      mapWithLimit([0, 1, 2, 3, 4, 5, 6, 7], 2, async (n) => {
        started.push(n);
        inFlight++;
        await tick();
        inFlight--;
        if (n === 1) throw new Error(`item ${n} failed`);
        return n;
      }),
      /item 1 failed/,
    );
    assert.equal(inFlight, 0, 'nothing left running');
    assert.ok(started.length < 8, `stopped early (started ${started.join(',')})`);
  });

  test('results in input order with at most `limit` in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapWithLimit([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      return n * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30]);
    assert.equal(most, 2);
  });
});
