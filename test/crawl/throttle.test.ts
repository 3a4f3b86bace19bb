import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HostThrottle, throttleWarning } from '../../src/crawl/throttle.js';
import { retryAfterMs, retryDelayMs } from '../../src/pipeline/retry.js';

describe('host throttling', () => {
  test('429/503 halve the requests in flight and raise the added delay (capped); successes give them back gradually', () => {
    const throttle = new HostThrottle(8, () => 1_000);
    assert.equal(throttle.answered('a.test:80', 429, null), null, 'no Retry-After: no hold');
    assert.equal(throttle.inFlightFor('a.test:80'), 4);
    assert.equal(throttle.addedDelayFor('a.test:80'), 100);
    for (let i = 0; i < 10; i++) throttle.answered('a.test:80', 503, null);
    assert.equal(throttle.inFlightFor('a.test:80'), 1);
    assert.equal(throttle.addedDelayFor('a.test:80'), 1000, 'the added delay is capped');
    assert.equal(throttle.inFlightFor('b.test:80'), 8, 'other hosts are not touched');
    for (let i = 0; i < 5; i++) throttle.answered('a.test:80', 200, null);
    assert.equal(throttle.inFlightFor('a.test:80'), 2, 'one more in flight per 5 successes');
    assert.equal(throttle.addedDelayFor('a.test:80'), 0);
    for (let i = 0; i < 100; i++) throttle.answered('a.test:80', 200, null);
    assert.equal(throttle.inFlightFor('a.test:80'), 8, 'never above the configured concurrency');
  });

  test('a Retry-After holds the host until then, shown as an ISO time', () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const throttle = new HostThrottle(2, () => now);
    assert.equal(throttle.answered('a.test:443', 429, 2000), 2000);
    assert.deepEqual(throttle.held(), [{ host: 'a.test:443', until: '2026-11-26T10:00:02.000Z' }]);
    assert.match(throttleWarning(throttle.held(), [])!, /a\.test:443 .*until 2026-11-26T10:00:02\.000Z/);
    now += 2001;
    assert.deepEqual(throttle.held(), []);
    assert.equal(throttleWarning([], []), null);
  });

  test('a host is paused once more than half of its last 20 pages ended refused (403/429); served pages do not count', () => {
    const throttle = new HostThrottle(2);
    for (let i = 0; i < 9; i++) assert.equal(throttle.settled('a.test:80', 200), false);
    assert.equal(throttle.settled('a.test:80', null), false);
    for (let i = 0; i < 10; i++)
      assert.equal(throttle.settled('a.test:80', 403), false, '10 of 20: not more');
    assert.equal(throttle.settled('a.test:80', 429), true, '11 of the last 20');
    assert.equal(throttle.isPaused('a.test:80'), true);
    assert.equal(throttle.settled('a.test:80', 429), false, 'paused once');
    assert.deepEqual(throttle.paused(), ['a.test:80']);
    assert.match(throttleWarning([], throttle.paused())!, /a\.test:80/);
    assert.equal(throttle.isPaused('b.test:80'), false);
  });
});

describe('retry timing', () => {
  test('Retry-After in seconds or as an HTTP date, capped; unreadable is null', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    assert.equal(retryAfterMs('2', 60_000, now), 2000);
    assert.equal(retryAfterMs('Thu, 26 Nov 2026 10:00:05 GMT', 60_000, now), 5000);
    assert.equal(retryAfterMs('Thu, 26 Nov 2026 09:00:00 GMT', 60_000, now), 0, 'a date in the past');
    assert.equal(retryAfterMs('3600', 60_000, now), 60_000, 'capped by MAX_RETRY_AFTER_MS');
    assert.equal(retryAfterMs('soon', 60_000, now), null);
    assert.equal(retryAfterMs(undefined, 60_000, now), null);
  });

  test('exponential backoff with equal jitter, never shorter than Retry-After', () => {
    const never = (): number => 0;
    const always = (): number => 1;
    assert.equal(retryDelayMs(1, null, never), 125, 'the first retry: half of 250 ms fixed');
    assert.equal(retryDelayMs(1, null, always), 250);
    assert.equal(retryDelayMs(3, null, always), 1000);
    assert.equal(retryDelayMs(20, null, always), 30_000, 'capped');
    assert.equal(retryDelayMs(1, 2000, always), 2000);
  });
});
