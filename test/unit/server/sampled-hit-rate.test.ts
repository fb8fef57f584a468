/** SampledHitRate (src/server/sampled-hit-rate.ts) judges a cache of names from a sample of them before the cache fills, then by its own answers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SampledHitRate } from '../../../src/server/sampled-hit-rate.js';

const CAPACITY = 10_000;

/** A name drawn at random from a directory of `population` users. */
const randomUser = (population: number) => () => `uid=user.${Math.floor(Math.random() * population)},ou=People,dc=example,dc=com`;

/**
 * Draws count names (from a population at random, or as `draw` draws them), looked up in a cache
 * of CAPACITY names kept while the verdict says so (as BindNames keeps its names: filled, never
 * started over here); the last verdict.
 */
function run(rate: SampledHitRate, population: number | (() => string), count: number, cache = new Set<string>()): boolean {
  const draw = typeof population === 'number' ? randomUser(population) : population;
  let verdict = rate.worthKeeping;
  for (let i = 0; i < count; i += 1) {
    const name = draw();
    verdict = rate.looked(name, verdict && cache.has(name));
    if (!verdict) cache.clear();
    rate.kept(name);
    if (verdict && cache.size < CAPACITY) cache.add(name);
  }
  return verdict;
}

test('a cache is not worth keeping before a window of lookups was seen', () => {
  assert.equal(run(new SampledHitRate(CAPACITY, 30_000), 100, 1000), false);
});

test('a cache as large as the names that bind is worth keeping, and stays kept', () => {
  const rate = new SampledHitRate(CAPACITY, 30_000);
  assert.equal(run(rate, 5_000, 100_000), true);
  assert.equal(run(rate, 5_000, 200_000), true);
});

test('a cache that would hold one name in ten of those that bind is not worth keeping', () => {
  assert.equal(run(new SampledHitRate(CAPACITY, 30_000), 100_000, 200_000), false);
});

test('the verdict follows the names: a directory that shrinks to a few hot accounts gets its cache back', () => {
  const rate = new SampledHitRate(CAPACITY, 0);
  assert.equal(run(rate, 1_000_000, 100_000), false);
  assert.equal(run(rate, 1_000, 100_000), true);
});

test('a kept cache is let go by its own answers once the names that bind spread over a million', () => {
  const rate = new SampledHitRate(CAPACITY, 30_000);
  const cache = new Set<string>();
  assert.equal(run(rate, 1_000, 100_000, cache), true);
  assert.equal(run(rate, 1_000_000, 100_000, cache), false);
  assert.equal(cache.size, 0);
});

test('three names that bind again and again make the cache worth keeping, sampled or not', () => {
  const rate = new SampledHitRate(CAPACITY, 30_000);
  const names = ['cn=sssd,ou=Services,dc=example,dc=com', 'cn=nslcd,ou=Services,dc=example,dc=com', 'uid=postfix,ou=Services,dc=example,dc=com'];
  let turn = 0;
  assert.equal(run(rate, () => names[turn++ % names.length]!, 40_000), true);
});
