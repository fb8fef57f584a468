/**
 * The parts out with import-ldif's workers (src/ldif/in-flight.ts): stored in the order they were
 * handed over whatever order they finish in, never more than the limit out once `add` returns,
 * and a part's failure reported when its turn comes, not before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartsInFlight } from '../../../src/ldif/in-flight.js';

/** A result settled from outside, to finish parts in any order. */
function later<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => { resolve = yes; reject = no; });
  return { promise, resolve, reject };
}

test('parts are stored in the order handed over, finished in reverse', async () => {
  const stored: number[] = [];
  const inFlight = new PartsInFlight<number>(1000, async (part) => { stored.push(part); });
  const parts = [0, 1, 2, 3, 4].map(() => later<number>());
  for (const part of parts) await inFlight.add(part.promise, 100);
  assert.deepEqual(stored, [], 'nothing is stored while under the limit');
  for (let i = parts.length - 1; i >= 0; i--) parts[i]!.resolve(i);
  await inFlight.drain();
  assert.deepEqual(stored, [0, 1, 2, 3, 4]);
  assert.equal(inFlight.outstanding, 0);
});

test('add waits for the oldest parts once more than the limit is out', async () => {
  const stored: number[] = [];
  const inFlight = new PartsInFlight<number>(250, async (part) => { stored.push(part); });
  for (let i = 0; i < 10; i++) {
    await inFlight.add(Promise.resolve(i), 100);
    assert.ok(inFlight.outstanding <= 250, `after part ${i}: ${inFlight.outstanding} bytes out`);
  }
  assert.deepEqual(stored, [0, 1, 2, 3, 4, 5, 6, 7], 'the two newest are still out');
  await inFlight.drain();
  assert.deepEqual(stored, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('a part larger than the limit is stored before add returns', async () => {
  const stored: string[] = [];
  const inFlight = new PartsInFlight<string>(10, async (part) => { stored.push(part); });
  await inFlight.add(Promise.resolve('big'), 64);
  assert.deepEqual(stored, ['big']);
});

test('a failed part is reported in its turn, after the parts before it are stored', async () => {
  const stored: number[] = [];
  const inFlight = new PartsInFlight<number>(1000, async (part) => { stored.push(part); });
  const first = later<number>();
  const failing = later<number>();
  await inFlight.add(first.promise, 100);
  await inFlight.add(failing.promise, 100);
  failing.reject(new Error('worker failed'));
  await new Promise((resolve) => setImmediate(resolve)); // no unhandled rejection while it waits its turn
  first.resolve(1);
  await assert.rejects(inFlight.drain(), /worker failed/);
  assert.deepEqual(stored, [1]);
});

test('an error from storing stops the parts after it', async () => {
  const stored: number[] = [];
  const inFlight = new PartsInFlight<number>(150, async (part) => {
    if (part === 1) throw new Error('disk full');
    stored.push(part);
  });
  await inFlight.add(Promise.resolve(0), 100);
  await inFlight.add(Promise.resolve(1), 100);
  await assert.rejects(inFlight.add(Promise.resolve(2), 100), /disk full/);
  assert.deepEqual(stored, [0]);
});
