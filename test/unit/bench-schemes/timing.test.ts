import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { timeConcurrently } from '../../../src/bench-schemes/timing.js';

const OPTIONS = { minMillis: 100, minOperations: 4 };

/** Busy-waits on the JavaScript thread, as a synchronous hash does. */
function spin(millis: number): void {
  const until = performance.now() + millis;
  while (performance.now() < until) { /* spin */ }
}

test('timeConcurrently: calls that wait off the thread overlap, and the loop is not stalled', async () => {
  const timing = await timeConcurrently(() => sleep(20), 4, OPTIONS);
  assert.ok(timing.operations >= 4);
  // One at a time would be at most 50/s; four overlapping waits give close to 200/s.
  assert.ok(timing.opsPerSecond > 100, `${timing.opsPerSecond} ops/s`);
  assert.ok(timing.longestStallMillis < 40, `${timing.longestStallMillis} ms`);
});

test('timeConcurrently: a synchronous call gains nothing and its stall is seen', async () => {
  const timing = await timeConcurrently(() => spin(20), 4, OPTIONS);
  // At most 50/s, one at a time, however many are in flight.
  assert.ok(timing.opsPerSecond < 55, `${timing.opsPerSecond} ops/s`);
  // Each call holds the loop for its 20 ms (up to four in one turn, 80 ms, when they start
  // together; on a busy machine the lanes drift apart and fewer share a turn: 38.8 ms seen).
  assert.ok(timing.longestStallMillis >= 15, `${timing.longestStallMillis} ms`);
});
