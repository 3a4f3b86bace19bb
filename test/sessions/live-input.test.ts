import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toInputCommand } from '../../src/sessions/live-input.js';

/** The live view's input: only mouse and key events of the Input domain, mapped from fractions of the frame. */

const frame = { deviceWidth: 1280, deviceHeight: 800 };

test('a click at fractions of the frame lands on the page in CSS pixels', () => {
  const click = { t: 'mouse', type: 'mousePressed', x: 0.5, y: 0.25, button: 'left', clickCount: 1 };
  assert.deepEqual(toInputCommand(click, frame), {
    method: 'Input.dispatchMouseEvent',
    params: { type: 'mousePressed', x: 640, y: 200, modifiers: 0, button: 'left', clickCount: 1 },
  });
  const wheel = toInputCommand({ t: 'wheel', x: 0, y: 1, deltaY: 1e9 }, frame);
  assert.deepEqual(wheel?.params, {
    type: 'mouseWheel',
    x: 0,
    y: 800,
    modifiers: 0,
    deltaX: 0,
    deltaY: 10_000,
  });
});

test('keys: printable ones type, Enter types a return, chords and named keys do not', () => {
  const key = (k: string, modifiers = 0) =>
    toInputCommand({ t: 'key', type: 'keyDown', key: k, modifiers }, frame);
  assert.deepEqual(key('a')?.params, {
    type: 'keyDown',
    key: 'a',
    code: '',
    modifiers: 0,
    windowsVirtualKeyCode: 65,
    text: 'a',
    unmodifiedText: 'a',
  });
  assert.equal(key('Enter')?.params.text, '\r');
  assert.equal(key('Backspace')?.params.type, 'rawKeyDown');
  assert.equal(key('Backspace')?.params.windowsVirtualKeyCode, 8);
  assert.equal(key('c', 2)?.params.text, undefined, 'Ctrl+C types nothing');
});

test('anything else is dropped: other kinds, positions off the frame, unknown types, long keys', () => {
  for (const message of [
    null,
    'click',
    { t: 'eval', expression: '1' },
    { t: 'mouse', type: 'mousePressed', x: 2, y: 0 },
    { t: 'mouse', type: 'mousePressed', x: Number.NaN, y: 0 },
    { t: 'mouse', type: 'dragIntercepted', x: 0, y: 0 },
    { t: 'key', type: 'char', key: 'a' },
    { t: 'key', type: 'keyDown', key: 'x'.repeat(33) },
  ]) {
    assert.equal(toInputCommand(message, frame), null, JSON.stringify(message));
  }
});
