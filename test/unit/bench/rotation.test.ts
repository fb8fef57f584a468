/**
 * The order of the side-by-side benchmarks' runs (bench/rotation.ts, bench/search-load.ts'
 * bestOfRounds): each round starts one server later, so no server always runs in the same slot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rotated } from '../../../bench/rotation.js';
import { bestOfRounds, type MeasuredSearches } from '../../../bench/search-load.js';

test('rotated: each round starts one item later, wrapping; nothing is lost', () => {
  assert.deepEqual(rotated(['a', 'b', 'c'], 0), ['a', 'b', 'c']);
  assert.deepEqual(rotated(['a', 'b', 'c'], 1), ['b', 'c', 'a']);
  assert.deepEqual(rotated(['a', 'b', 'c'], 5), ['c', 'a', 'b']);
  assert.deepEqual(rotated([], 3), []);
});

test('bestOfRounds: every server takes every slot over as many rounds as servers, and the best run of each is kept', async () => {
  const servers = [{ label: 'slapd' }, { label: 'leveldap' }, { label: 'other build' }];
  const order: string[] = [];
  let run = 0;
  const best = await bestOfRounds(servers, 3, async ({ label }) => {
    order.push(label);
    run += 1;
    return { throughput: label === 'leveldap' ? run : 1, cpu: 0 } as unknown as MeasuredSearches;
  }, () => {});
  assert.deepEqual(order, ['slapd', 'leveldap', 'other build', 'leveldap', 'other build', 'slapd', 'other build', 'slapd', 'leveldap']);
  assert.equal(best.get('leveldap')?.throughput, 9);
});
