/** serve's limit flags and --config keys (src/cli/options/limits.ts): defaults, the file, flags over the file, usage errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limitsFromOptions } from '../../../src/cli/options/limits.js';
import { LIMIT_KEYS } from '../../../src/cli/options/limit-keys.js';
import { readPolicyFile } from '../../../src/cli/options/policy.js';
import { CliError } from '../../../src/cli/support/errors.js';
import { withConfig } from '../../helpers/config-file.js';
import { DEFAULT_LIMITS } from '../../../src/server/index.js';

const usageError = (pattern: RegExp) => (error: unknown) => error instanceof CliError && pattern.test(error.message);

test('no flags and no file: the defaults', async () => {
  assert.deepEqual(await limitsFromOptions({}), DEFAULT_LIMITS);
});

test('every limit has a --config key, the field it sets; flags override the file', async () => {
  // Each key is a Limits field (pagedSizeLimit has no default of its own: it follows sizeLimit).
  for (const key of LIMIT_KEYS) assert.ok(key in DEFAULT_LIMITS || key === 'pagedSizeLimit', key);
  assert.ok(LIMIT_KEYS.includes('maxRefintGroups') && LIMIT_KEYS.includes('maxSubtreeRename') && LIMIT_KEYS.includes('sizeLimit'));
  await withConfig({ sizeLimit: 7, maxRefintGroups: 3, maxSubtreeRename: 50, maxFailures: 4 }, async (file) => {
    const fromFile = await limitsFromOptions({}, file);
    assert.equal(fromFile.sizeLimit, 7);
    assert.equal(fromFile.maxRefintGroups, 3);
    assert.equal(fromFile.maxSubtreeRename, 50);
    assert.equal(fromFile.timeLimit, DEFAULT_LIMITS.timeLimit);
    const flagged = await limitsFromOptions({ 'size-limit': 9 }, file);
    assert.equal(flagged.sizeLimit, 9);
    assert.equal(flagged.maxRefintGroups, 3);
    // The password policy reader leaves the limit keys to limits.ts (and still reads its own).
    assert.deepEqual(await readPolicyFile(file), { maxFailures: 4 });
  });
});

test('a value out of range or not a whole number is a usage error naming the flag or the key', async () => {
  await assert.rejects(limitsFromOptions({ 'max-connections': 0 }), usageError(/--max-connections 0: a whole number from 1/));
  await assert.rejects(limitsFromOptions({ 'size-limit': Number.NaN }), usageError(/--size-limit needs a number/));
  for (const value of [-1, 2.5, '100', null]) {
    await withConfig({ sizeLimit: value }, async (file) => {
      await assert.rejects(limitsFromOptions({}, file), usageError(/"sizeLimit" .*: a whole number from 0/));
    });
  }
  await withConfig({ maxConnections: 10, reservedConnections: 10 }, async (file) => {
    await assert.rejects(limitsFromOptions({}, file), usageError(/--reserved-connections 10: fewer than --max-connections \(10\)/));
  });
});
