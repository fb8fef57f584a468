import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OperationSlots } from '../../../../src/server/net/operation-slots.js';
import { Session } from '../../../../src/server/net/session.js';

describe('OperationSlots: a connection\'s operations by message ID', () => {
  test('set, get, has, delete and size, as a Map of them would answer', () => {
    const slots = new OperationSlots<string>();
    const map = new Map<number, string>();
    let state = 7;
    for (let step = 0; step < 5_000; step += 1) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      const id = state % 40;
      if (state % 3 === 0) {
        slots.delete(id);
        map.delete(id);
      } else {
        slots.set(id, `v${step}`);
        map.set(id, `v${step}`);
      }
      assert.equal(slots.size, map.size);
      assert.equal(slots.get(id), map.get(id));
      assert.equal(slots.has(id), map.has(id));
    }
    assert.deepEqual(slots.takeAll().sort(), [...map.values()].sort());
    assert.equal(slots.size, 0);
    assert.deepEqual(slots.takeAll(), []);
  });

  test('a message ID used again while in progress takes its place, as Map.set does', () => {
    const slots = new OperationSlots<string>();
    slots.set(5, 'first');
    slots.set(5, 'second');
    assert.equal(slots.size, 1);
    assert.equal(slots.get(5), 'second');
    slots.delete(5);
    assert.equal(slots.has(5), false);
  });

  test('a session abandons what it started, and closing stops everything but forgets it', () => {
    const session = new Session(1, 'test', 4);
    const search = session.start(2);
    const bind = session.start(3, true);
    session.abandon(2);
    session.abandon(3);
    assert.equal(search.aborted, true);
    assert.equal(bind.aborted, false, 'a bind cannot be abandoned');
    session.finish(2);
    assert.equal(session.isRunning(2), false);
    assert.equal(session.outstanding, 1);
    const later = session.start(4);
    session.abandonAll();
    assert.equal(later.aborted, true);
    assert.equal(bind.aborted, true);
    assert.equal(session.outstanding, 0);
  });

  test('operations started and finished one at a time leave nothing in the old generation (a Map emptied each time did)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const oldSpaceUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
    const session = new Session(1, 'test', 4);
    session.start(0);
    session.finish(0);
    gc();
    gc(); // the session has outlived two collections: it is in the old generation, as a connection's is
    const before = oldSpaceUsed();
    for (let id = 1; id <= 20_000; id += 1) {
      session.start(id);
      session.finish(id);
    }
    const grew = oldSpaceUsed() - before;
    assert.ok(grew < 500_000, `the old generation grew by ${grew} bytes over 20,000 operations`);
  });
});
