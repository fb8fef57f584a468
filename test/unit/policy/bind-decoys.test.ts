/**
 * The decoys a bind of an unknown DN verifies (src/policy/bind-decoys.ts): the same sampled
 * account for a DN at every try and on every serving thread (a decoy picked at random for each
 * bind let spaced tries tell an unknown DN from an account by its cost), that account's values
 * as the store holds them now, the sample's when it holds none, the fallback with no account.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BindDecoys, type DecoyAccount } from '../../../src/policy/bind-decoys.js';

const ACCOUNTS: DecoyAccount[] = Array.from({ length: 16 }, (_, n) => ({ key: `k${n}`, stored: [n % 2 === 0 ? `{SSHA}even-${n}` : `{PBKDF2-SHA256}odd-${n}`] }));
const unknown = (n: number) => `uid=nobody.${n},ou=people,dc=example,dc=com`;

test('an unknown DN verifies the same account\'s values at every try, on every thread', () => {
  const threads = [new BindDecoys(ACCOUNTS, '{SSHA}fallback', () => undefined), new BindDecoys(ACCOUNTS, '{SSHA}fallback', () => undefined)];
  for (let n = 0; n < 50; n += 1) {
    const first = threads[0]!.pick(unknown(n));
    for (let i = 0; i < 20; i += 1) assert.deepEqual(threads[i % 2]!.pick(unknown(n)), first, unknown(n));
  }
  const picked = new Set(Array.from({ length: 200 }, (_, n) => threads[0]!.pick(unknown(n))[0]));
  assert.ok(picked.size >= 12, `200 unknown DNs spread over the sample (${picked.size} of 16 accounts)`);
});

test('the account\'s values as the store holds them now; the sampled ones when it holds none; the fallback with no account', () => {
  const now = new Map<string, Buffer[]>();
  const decoys = new BindDecoys(ACCOUNTS, '{SSHA}fallback', (key) => now.get(key));
  const name = unknown(7);
  const sampled = decoys.pick(name);
  const key = ACCOUNTS.find((account) => account.stored[0] === sampled[0])!.key;
  now.set(key, [Buffer.from('{ARGON2}re-encoded')]);
  assert.deepEqual(decoys.pick(name), ['{ARGON2}re-encoded'], 'an account re-encoded since is followed');
  now.set(key, []);
  assert.deepEqual(decoys.pick(name), sampled, 'an account without a password now: its sampled values');
  assert.deepEqual(new BindDecoys([], '{SSHA}fallback', () => undefined).pick(name), ['{SSHA}fallback']);
});

test('accounts binds look up fill a short sample, each once; a full one stays as it is', () => {
  const decoys = new BindDecoys(ACCOUNTS.slice(0, 1), '{SSHA}fallback', () => undefined, 2);
  decoys.offer('k0', ['{SSHA}again']);
  assert.deepEqual(new Set(Array.from({ length: 20 }, (_, n) => decoys.pick(unknown(n))[0])), new Set(['{SSHA}even-0']));
  decoys.offer('k9', ['{SSHA}new']);
  decoys.offer('k10', ['{SSHA}newer']);
  assert.deepEqual(new Set(Array.from({ length: 40 }, (_, n) => decoys.pick(unknown(n))[0])), new Set(['{SSHA}even-0', '{SSHA}new']));
});
