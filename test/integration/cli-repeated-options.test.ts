/**
 * An option given twice: the last value counts, as in most command-line tools (`serve --log-level
 * warn --log-level warn` used to crash with a stack trace: pino got the list "warn,warn"), and
 * a repeatable option (`--scheme`) still collects every value.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { leveldapBin } from '../helpers/paths.js';
import { run } from '../../src/harness/run.js';
import { startLeveldap } from '../helpers/leveldap-server.js';

describe('leveldap: an option given twice', () => {
  test('serve --log-level warn --log-level info --cache-mb 4 --cache-mb 8 starts, logs at info and answers', async () => {
    // the helper waits for the 'listening' line, logged at info: the second --log-level must count
    const server = await startLeveldap({ users: 1, args: ['--log-level', 'warn', '--log-level', 'info', '--cache-mb', '4', '--cache-mb', '8'] });
    try {
      const result = await run('ldapsearch', ['-x', '-H', `ldap://127.0.0.1:${server.port}`, '-b', '', '-s', 'base', 'namingContexts']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /namingContexts: dc=example,dc=com/);
    } finally {
      await server.stop();
    }
  });

  test('a repeatable option still takes every value: bench-schemes --micro --scheme SSHA --scheme SSHA512', async () => {
    const result = await run(process.execPath, [leveldapBin, 'bench-schemes', '--micro', '--millis', '20', '--scheme', 'SSHA', '--scheme', 'SSHA512', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"SSHA"/);
    assert.match(result.stdout, /"SSHA512"/);
  });
});
