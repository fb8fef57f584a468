/** serve's monitoring flags and --config keys (src/cli/options/monitoring.ts): defaults, the file, flags over the file, usage errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monitoringFromOptions } from '../../../src/cli/options/monitoring.js';
import { readPolicyFile } from '../../../src/cli/options/policy.js';
import { CliError } from '../../../src/cli/support/errors.js';
import { withConfig } from '../../helpers/config-file.js';

test('by default: cn=Monitor for the admin, no metrics endpoint', async () => {
  assert.deepEqual(await monitoringFromOptions({}, undefined), { monitorAccess: 'admin' });
});

test('flags: the access, and the endpoint on loopback unless a host is given', async () => {
  assert.deepEqual(await monitoringFromOptions({ 'monitor-access': 'users', 'metrics-port': 9389 }, undefined), {
    monitorAccess: 'users', metrics: { port: 9389, host: '127.0.0.1' },
  });
  assert.deepEqual((await monitoringFromOptions({ 'metrics-port': 0, 'metrics-host': '::1' }, undefined)).metrics, { port: 0, host: '::1' });
});

test('the --config file\'s keys, flags over them; the password policy reader leaves them alone', async () => {
  await withConfig({ monitorAccess: 'anonymous', metricsPort: 9400, metricsHost: '0.0.0.0', maxFailures: 3 }, async (file) => {
    assert.deepEqual(await monitoringFromOptions({}, file), { monitorAccess: 'anonymous', metrics: { port: 9400, host: '0.0.0.0' } });
    assert.deepEqual(await monitoringFromOptions({ 'monitor-access': 'admin', 'metrics-port': 1 }, file), {
      monitorAccess: 'admin', metrics: { port: 1, host: '0.0.0.0' },
    });
    assert.deepEqual(await readPolicyFile(file), { maxFailures: 3 });
  });
});

test('wrong values are usage errors naming the flag or the key', async () => {
  await assert.rejects(monitoringFromOptions({ 'metrics-port': 70_000 }, undefined), (error: unknown) => error instanceof CliError && /--metrics-port/.test(error.message));
  await withConfig({ monitorAccess: 'everyone' }, async (file) => {
    await assert.rejects(monitoringFromOptions({}, file), (error: unknown) => error instanceof CliError && /"monitorAccess"/.test(error.message));
  });
});
