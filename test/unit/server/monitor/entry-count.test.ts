/**
 * EntryCount (src/server/monitor/entry-count.ts): the entry count is made again at most every
 * 10 s and not before 100 times the last count's duration, never while one runs; a failed count
 * is tried again after the floor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntryCount } from '../../../../src/server/monitor/entry-count.js';

/** A store whose count takes `took` ms of the fake clock; counts made so far in `counts`. */
function fakeStore(clock: { now: number }, took: number, fail = false) {
  const store = {
    counts: 0,
    async countEntries(): Promise<number> {
      store.counts += 1;
      clock.now += took;
      if (fail) throw new Error('read failed');
      return 42 + store.counts;
    },
  };
  return store;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a cheap count is made again after 10 s; reads in between get the last count', async () => {
  const clock = { now: 0 };
  const count = new EntryCount(() => clock.now);
  const store = fakeStore(clock, 5);
  assert.equal(await count.of(store), 43);
  clock.now = 9_000;
  assert.equal(await count.of(store), 43);
  clock.now = 10_001;
  assert.equal(await count.of(store), 44);
  assert.equal(store.counts, 2);
});

test('a costly count waits 100 times its duration: a 4.5 s count of a million entries, 450 s', async () => {
  const clock = { now: 0 };
  const count = new EntryCount(() => clock.now);
  const store = fakeStore(clock, 4_500);
  await count.of(store);
  await settle();
  clock.now = 300_000;
  await count.of(store);
  assert.equal(store.counts, 1, 'not yet');
  clock.now = 450_001;
  await count.of(store);
  assert.equal(store.counts, 2);
});

test('no second count while one runs; a failed count is tried again after the floor', async () => {
  const clock = { now: 0 };
  const count = new EntryCount(() => clock.now);
  let release: (value: number) => void = () => {};
  const slow = { counts: 0, countEntries: () => { slow.counts += 1; return new Promise<number>((resolve) => { release = resolve; }); } };
  const first = count.of(slow);
  clock.now = 60_000;
  const second = count.of(slow);
  assert.equal(slow.counts, 1);
  release(7);
  assert.deepEqual(await Promise.all([first, second]), [7, 7]);
  const failing = new EntryCount(() => clock.now);
  const broken = fakeStore(clock, 1, true);
  await assert.rejects(failing.of(broken), /read failed/);
  await settle();
  clock.now += 10_000;
  await assert.rejects(failing.of(broken), /read failed/);
  assert.equal(broken.counts, 2);
});
