import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../src/harness/run.js';
import { repoRoot } from '../../helpers/paths.js';
import { UsageError, DEFAULT_PERCENTILES } from '../../../src/authrate/options.js';
import { parseAuthrateOptions } from '../../../src/authrate/authrate.js';
import { quotas } from '../../../src/authrate/engine.js';

const authrate = join(repoRoot, 'bin', 'authrate.js');
const DN = ['-D', 'uid=user.{},ou=People,dc=example,dc=com', '-g', 'rand(0,10)'];

describe('authrate options: mistakes exit 89 with a message', () => {
  const cases: [string, string[], RegExp][] = [
    ['no -D', ['-w', 'p'], /-D .*required/],
    ['no password', [...DN], /bind password is needed/],
    ['two passwords', [...DN, '-w', 'p', '--bindPasswordEnv', 'X'], /one way only/],
    ['template needs more -g', ['-D', '{1} {2}', '-g', '1', '-w', 'p'], /uses 2 argument/],
    ['bad generator', ['-D', '{}', '-g', 'rand(5,1)', '-w', 'p'], /-g rand\(5,1\)/],
    ['unknown option', [...DN, '-w', 'p', '--nope'], /Unknown argument/],
    ['m/c is 0', [...DN, '-w', 'p', '-m', '3', '-c', '4'], /-m 3/],
    ['-c not a number', [...DN, '-w', 'p', '-c', 'many'], /-c: "many"/],
    ['-I over 100', [...DN, '-w', 'p', '-I', '101'], /-I: "101"/],
    ['-e over 100', [...DN, '-w', 'p', '-e', '100.5'], /-e: "100.5"/],
    ['a filter without -b', [...DN, '-w', 'p', '(uid=x)'], /needs a search base: -b/],
    ['-b without a filter', [...DN, '-w', 'p', '-b', 'dc=example,dc=com'], /-b needs a filter/],
    ['a malformed filter', ['-D', '{2}', ...DN.slice(2), '-w', 'p', '-b', 'dc=x', '(uid={1}'], /not an LDAP filter/],
    ['a bad scope', ['-D', '{2}', ...DN.slice(2), '-w', 'p', '-b', 'dc=x', '-s', 'deep', '(uid={1})'], /-s: "deep"/],
    ['-D beyond the found DN', ['-D', '{3}', ...DN.slice(2), '-w', 'p', '-b', 'dc=x', '(uid={1})'], /plus the found DN/],
    ['-Z and -q together', [...DN, '-w', 'p', '-Z', '-q'], /exclude each other/],
    ['missing env variable', [...DN, '--bindPasswordEnv', 'AUTHRATE_NO_SUCH_VARIABLE'], /not set/],
    // Review 2026-12-08: Number() took these, and timers overflowed past 2^31 ms (-d ended at once).
    ['-m in hex', [...DN, '-w', 'p', '-m', '0x10'], /-m: "0x10"/],
    ['-c with an exponent', [...DN, '-w', 'p', '-c', '1e1'], /-c: "1e1"/],
    ['-d beyond what a timer takes', [...DN, '-w', 'p', '-d', '3000000'], /-d: "3000000" is not a duration in seconds \(at most 2147483\)/],
    ['-i beyond what a timer takes', [...DN, '-w', 'p', '-i', '3000000'], /-i: "3000000"/],
  ];
  for (const [name, args, message] of cases) {
    test(name, async () => {
      const result = await run(process.execPath, [authrate, ...args]);
      assert.equal(result.code, 89, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    });
  }
});

describe('authrate options: values', () => {
  test('defaults follow OpenDJ', () => {
    const config = parseAuthrateOptions([...DN, '-w', 'secret']);
    assert.equal(config.host, 'localhost');
    assert.equal(config.port, 389);
    assert.equal(config.connections, 1);
    assert.equal(config.statInterval, 5);
    assert.deepEqual(config.percentiles, DEFAULT_PERCENTILES);
    assert.equal(config.keepConnectionsOpen, false);
    assert.equal(config.password.toString(), 'secret');
    assert.equal(config.bindDn(['7']), 'uid=user.7,ou=People,dc=example,dc=com');
  });

  test('search-then-bind: -b, -s, -a, the filter and attributes; the found DN is the last -D argument', () => {
    const config = parseAuthrateOptions(['-D', '{2}', '-g', 'rand(0,10)', '-w', 'p', '-b', 'ou=People,dc=example,dc=com',
      '-s', 'one', '-a', 'always', '(uid=user.{1})', 'cn', 'mail']);
    const search = config.search!;
    assert.equal(search.base(['3']), 'ou=People,dc=example,dc=com');
    assert.equal(search.filter(['3']), '(uid=user.3)');
    assert.deepEqual([search.scope, search.deref, search.attributes], [1, 3, ['cn', 'mail']]);
    assert.equal(config.bindDn(['3', 'uid=user.3,ou=People,dc=example,dc=com']), 'uid=user.3,ou=People,dc=example,dc=com');
    assert.equal(parseAuthrateOptions([...DN, '-w', 'p']).search, undefined);
    assert.equal(parseAuthrateOptions(['-D', '%2$s', '-g', '1', '-w', 'p', '-b', 'dc=x', '(uid=%s)']).search?.scope, 2, 'sub by default');
  });

  test('-g and -e repeat in order; long names work', () => {
    const config = parseAuthrateOptions(['--bindDN', '{2}-{1}', '-g', 'a', '--argument', 'b', '-w', 'p', '-e', '50', '-e', '99.9', '--numConnections', '3', '-f']);
    assert.equal(config.bindDn(config.generators.map((factory) => factory()())), 'b-a');
    assert.deepEqual(config.percentiles, [50, 99.9]);
    assert.equal(config.connections, 3);
    assert.equal(config.keepConnectionsOpen, true);
  });

  test('the password from a file (first line) or the environment; PingDS\'s --bindPassword:file / :env spellings too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authrate-'));
    const file = join(dir, 'pw');
    await writeFile(file, 'from-file\r\nignored\n');
    assert.equal(parseAuthrateOptions([...DN, '-j', file]).password.toString(), 'from-file');
    assert.equal(parseAuthrateOptions([...DN, '--bindPassword:file', file]).password.toString(), 'from-file');
    await rm(dir, { recursive: true });
    process.env['AUTHRATE_TEST_PASSWORD'] = 'from-env';
    assert.equal(parseAuthrateOptions([...DN, '--bindPasswordEnv', 'AUTHRATE_TEST_PASSWORD']).password.toString(), 'from-env');
    assert.equal(parseAuthrateOptions([...DN, '--bindPassword:env', 'AUTHRATE_TEST_PASSWORD']).password.toString(), 'from-env');
    assert.throws(() => parseAuthrateOptions([...DN, '-j', join(dir, 'gone')]), UsageError);
  });

  test('positional arguments stay text: attribute 1.10 is not 1.1 (review 2026-12-08)', async () => {
    const { parseSearchrateOptions } = await import('../../../src/authrate/searchrate.js');
    const config = parseSearchrateOptions(['-b', 'dc=x', '(uid=x)', '1.10', '1e3', '0x1f']);
    assert.deepEqual(config.search.attributes, ['1.10', '1e3', '0x1f']);
  });

  test('-m is split over the connections and adds up exactly', () => {
    assert.deepEqual(quotas(10, 4), [3, 3, 2, 2]);
    assert.deepEqual(quotas(500, 4), [125, 125, 125, 125]);
    assert.deepEqual(quotas(0, 2), [0, 0]);
  });
});
