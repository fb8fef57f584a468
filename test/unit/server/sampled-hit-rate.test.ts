/** SampledHitRate (src/server/sampled-hit-rate.ts) judges a cache of names from a sample of them, before the cache fills. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SampledHitRate } from '../../../src/server/sampled-hit-rate.js';

/** Draws count names from population at random, looked up then kept as a cache would; the last verdict. */
function run(rate: SampledHitRate, population: number, count: number): boolean {
  let verdict = rate.worthKeeping;
  for (let i = 0; i < count; i += 1) {
    const name = `uid=user.${Math.floor(Math.random() * population)},ou=People,dc=example,dc=com`;
    verdict = rate.looked(name);
    rate.kept(name);
  }
  return verdict;
}

test('a cache is not worth keeping before a window of lookups was seen', () => {
  const rate = new SampledHitRate(10_000, 30_000);
  assert.equal(run(rate, 100, 1000), false);
});

test('a cache as large as the names that bind is worth keeping', () => {
  assert.equal(run(new SampledHitRate(10_000, 30_000), 5_000, 100_000), true);
});

test('a cache that would hold one name in ten of those that bind is not worth keeping', () => {
  assert.equal(run(new SampledHitRate(10_000, 30_000), 100_000, 200_000), false);
});

test('the verdict follows the names: a directory that shrinks to a few hot accounts gets its cache back', () => {
  const rate = new SampledHitRate(10_000, 0);
  assert.equal(run(rate, 1_000_000, 100_000), false);
  assert.equal(run(rate, 1_000, 100_000), true);
});
