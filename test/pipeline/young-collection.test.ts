import assert from 'node:assert/strict';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { test } from 'node:test';
import { collectBetweenTasks } from '../../src/pipeline/young-collection.js';

const youngUse = (): number => {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!;
  return space.space_used_size / (space.space_used_size + space.space_available_size);
};

test('between tasks, a young generation more than half full is collected, and only then', async () => {
  const minor: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
        minor.push(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    // Short-lived garbage until the young generation is past half full (a scavenge on the way starts over).
    let garbage: unknown[] = [];
    for (let i = 0; i < 10_000_000 && (i % 100 !== 0 || youngUse() <= 0.6); i++) {
      garbage.push({ i });
      if (garbage.length === 1000) garbage = [];
    }
    assert.ok(youngUse() > 0.5, 'the young generation filled past half');
    const before = youngUse();
    collectBetweenTasks();
    assert.ok(youngUse() < before / 2, `collected: ${before} → ${youngUse()}`);
    const after = youngUse();
    collectBetweenTasks(); // now under half full: nothing to do
    assert.ok(youngUse() >= after);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(minor.length >= 1, 'a minor collection ran');
  } finally {
    observer.disconnect();
  }
});

test("V8's gc() is not handed to contexts made afterwards", () => {
  assert.equal(vm.runInNewContext('typeof gc'), typeof (globalThis as { gc?: unknown }).gc);
  if (!('gc' in globalThis)) assert.equal(vm.runInNewContext('typeof gc'), 'undefined');
});
