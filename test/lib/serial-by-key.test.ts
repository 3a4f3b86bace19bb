import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceBusyError } from '../../src/errors.js';
import { SerialByKey } from '../../src/lib/serial-by-key.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SerialByKey: one at a time per key', () => {
  test('failure paths first: a failing holder lets the next one in; a full queue refuses at once; idle keys are dropped', async () => {
    const serial = new SerialByKey('test', 1);
    let release!: () => void;
    const first = serial.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    const second = serial.run('a', () => Promise.reject(new Error('boom')));
    await assert.rejects(
      serial.run('a', () => Promise.resolve()),
      ServiceBusyError,
      'one waiting is the limit',
    );
    release();
    await first;
    await assert.rejects(second, /boom/);
    assert.equal(await serial.run('a', () => Promise.resolve('free again')), 'free again');
    assert.equal(serial.keys, 0);
  });

  test('work of one key runs in arrival order, never two at once; other keys do not wait', async () => {
    const serial = new SerialByKey('test', 100);
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const work = (i: number) => async () => {
      inside++;
      most = Math.max(most, inside);
      await tick();
      order.push(i);
      inside--;
    };
    let otherDone = false;
    const runs = [0, 1, 2, 3, 4].map((i) => serial.run('a', work(i)));
    await serial.run('b', async () => void (otherDone = true));
    assert.ok(otherDone);
    assert.ok(order.length < 5, 'key b did not wait for key a');
    await Promise.all(runs);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    assert.equal(most, 1);
  });
});
