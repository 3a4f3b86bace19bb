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

describe('Gate with keys: fair share across tenants', () => {
  test('failure paths first: a full queue refuses a flooding key but queues another; an abandoned keyed waiter leaves its turn', async () => {
    const gate = new Gate('test', 1, 4);
    await gate.enter();
    const flood = [1, 2, 3, 4].map(() => gate.enter(undefined, 'a').then(() => gate.leave()));
    await assert.rejects(gate.enter(undefined, 'a'), ServiceBusyError, 'a fills the queue');
    const controller = new AbortController();
    const abandoned = gate.enter(controller.signal, 'b');
    assert.equal(gate.waiting, 5, 'b holds less than its share of the queue: it waits all the same');
    controller.abort();
    await assert.rejects(abandoned, ServiceBusyError);
    assert.equal(gate.waitingFor('b'), 0);
    assert.equal(gate.waiting, 4);
    let cIn = false;
    const late = gate.enter(undefined, 'c').then(() => (cIn = true));
    await assert.rejects(gate.enter(undefined, 'a'), ServiceBusyError, 'a still holds more than its share');
    gate.leave(); // a's first waiter enters and leaves at once: the next turn is c's, not a's
    await late;
    assert.ok(cIn);
    assert.equal(gate.waitingFor('a'), 3);
    gate.leave();
    await Promise.all(flood);
    assert.equal(gate.active, 0);
    assert.equal(gate.waiting, 0);
  });

  test('failure path: a gate resized down lets keyed holders finish; resized up, it wakes keys in turn', async () => {
    const gate = new Gate('test', 2, Number.POSITIVE_INFINITY);
    await gate.enter(undefined, 'a');
    await gate.enter(undefined, 'a');
    const order: string[] = [];
    const waiters = ['a', 'a', 'a', 'b', 'c'].map((key) =>
      gate.enter(undefined, key).then(() => void order.push(key)),
    );
    gate.resize(1);
    gate.leave();
    await tick();
    assert.deepEqual(order, [], 'one holder left, the limit is one: nobody enters');
    gate.resize(4);
    await tick();
    assert.deepEqual(order, ['a', 'b', 'c'], 'three slots freed: one per key, in their turn');
    gate.leave();
    gate.leave();
    await Promise.all(waiters);
    assert.deepEqual(order, ['a', 'b', 'c', 'a', 'a']);
  });

  test('a key with 500 waiting and a key with one take alternate slots; each key in arrival order', async () => {
    const gate = new Gate('test', 1, Number.POSITIVE_INFINITY);
    await gate.enter();
    const order: string[] = [];
    const many = Array.from({ length: 500 }, (_, i) =>
      gate.run(async () => void order.push(`a${i}`), undefined, 'a'),
    );
    await tick();
    const one = gate.run(async () => void order.push('b0'), undefined, 'b');
    const two = gate.run(async () => void order.push('b1'), undefined, 'b');
    gate.leave();
    await Promise.all([...many, one, two]);
    assert.deepEqual(order.slice(0, 5), ['a0', 'b0', 'a1', 'b1', 'a2']);
    assert.deepEqual(
      order.filter((k) => k.startsWith('a')),
      Array.from({ length: 500 }, (_, i) => `a${i}`),
    );
  });

  test('unkeyed waiters keep first come, first served beside keyed ones', async () => {
    const gate = new Gate('test', 1, Number.POSITIVE_INFINITY);
    await gate.enter();
    const order: string[] = [];
    const waiters = [
      gate.run(async () => void order.push('u1')),
      gate.run(async () => void order.push('u2')),
      gate.run(async () => void order.push('k1'), undefined, 'k'),
      gate.run(async () => void order.push('u3')),
    ];
    gate.leave();
    await Promise.all(waiters);
    assert.deepEqual(order, ['u1', 'k1', 'u2', 'u3']);
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
