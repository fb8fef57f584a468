/**
 * `leveldap serve` runs with V8's collector on the thread that needs it (--single-threaded-gc) and
 * without V8's allocation-site pretenuring (--no-allocation-site-pretenuring): bin/leveldap.js
 * starts the process image again with the flags (native/sys's exec), so the pid the caller spawned
 * is the server's, it serves and stops as before; LEVELDAP_PARALLEL_GC=1 and LEVELDAP_PRETENURING=1
 * keep V8's defaults. The main thread's young generation is as small as a serving worker's
 * (--max-semi-space-size=1), unless the caller set its own size. Skipped when the addon is not
 * built, unless LEVELDAP_REQUIRE_NATIVE=1 (.ci/run).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sysUnavailable } from '../../src/server/net/native-sys.js';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap } from '../helpers/leveldap-server.js';
import { ldapTool } from '../helpers/ldap-client.js';

function skipReason(): string | false {
  if (findProgram('ldapwhoami') === undefined) return 'OpenLDAP clients missing: apt-get install ldap-utils';
  const unavailable = sysUnavailable();
  return unavailable && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? `native/sys: ${unavailable}` : false;
}
const skip = skipReason();

/** The command line of a running process, as the kernel holds it. */
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** The command line of a server started with this environment (the flag switches cleared unless set). */
async function servedCommandLine(env: Record<string, string>): Promise<string[]> {
  const server = await startLeveldap({ users: 1, env: { LEVELDAP_PARALLEL_GC: '', LEVELDAP_PRETENURING: '', ...env } });
  try {
    return commandLine(server.process.pid!);
  } finally {
    await server.stop();
  }
}

describe('leveldap serve and the collector', { skip }, () => {
  test('the spawned pid is the server, running with --single-threaded-gc, --no-allocation-site-pretenuring and --max-semi-space-size=1; it binds and stops with status 0', async () => {
    const server = await startLeveldap({ users: 3, env: { LEVELDAP_PARALLEL_GC: '', LEVELDAP_PRETENURING: '' } });
    try {
      const argv = commandLine(server.process.pid!);
      assert.equal(argv[1], '--single-threaded-gc', argv.join(' '));
      assert.equal(argv[2], '--no-allocation-site-pretenuring', argv.join(' '));
      assert.equal(argv[3], '--max-semi-space-size=1', argv.join(' '));
      assert.ok(argv.includes('serve'), argv.join(' '));
      const whoami = await ldapTool('ldapwhoami', server.url, ['-D', 'uid=user.1,ou=People,dc=example,dc=com', '-w', 'password']);
      assert.equal(whoami.code, 0, whoami.stderr);
      assert.match(whoami.stdout, /uid=user\.1,ou=People,dc=example,dc=com/);
      const exit = await server.terminate();
      assert.equal(exit.code, 0, server.stderr());
    } finally {
      await server.stop();
    }
  });

  test('LEVELDAP_PARALLEL_GC=1 keeps V8\'s default collector', async () => {
    const argv = await servedCommandLine({ LEVELDAP_PARALLEL_GC: '1' });
    assert.ok(!argv.includes('--single-threaded-gc'), argv.join(' '));
    assert.ok(argv.includes('--no-allocation-site-pretenuring'), argv.join(' '));
  });

  test('LEVELDAP_PRETENURING=1 keeps V8\'s allocation-site pretenuring', async () => {
    const argv = await servedCommandLine({ LEVELDAP_PRETENURING: '1' });
    assert.ok(!argv.includes('--no-allocation-site-pretenuring'), argv.join(' '));
    assert.equal(argv[1], '--single-threaded-gc', argv.join(' '));
  });

  test('a young generation size set by the caller (NODE_OPTIONS) is kept', async () => {
    const argv = await servedCommandLine({ NODE_OPTIONS: '--max-semi-space-size=8' });
    assert.ok(!argv.some((arg) => arg.startsWith('--max-semi-space-size')), argv.join(' '));
    assert.equal(argv[1], '--single-threaded-gc', argv.join(' '));
  });
});
