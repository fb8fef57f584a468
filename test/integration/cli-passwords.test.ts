/** The password commands as a user runs them: `leveldap encode-password`, `schemes`, `bench-schemes`. */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, leveldapBin } from '../helpers/paths.js';
import { run, type RunResult } from '../../src/harness/run.js';
import { slapdAvailable } from '../../src/harness/slapd.js';

const leveldap = (args: string[], input?: string): Promise<RunResult> => run(process.execPath, [leveldapBin, ...args], input);
const PLUGIN = fixturePath('plugins', 'ssha3.mjs');
const OPENLDAP_PBKDF2 = '{PBKDF2}60000$Y6ZHtTTbeUgpIbIW0QDmDA$j/aU7jFKUSbH4UobNQDm9OEIwuw';

describe('leveldap encode-password', () => {
  let dir = '';
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'leveldap-cli-')); });
  after(async () => { await rm(dir, { recursive: true, force: true }); });

  test('hashes with the default scheme, and --verify exits 0 on match, 1 on mismatch', async () => {
    const encoded = await leveldap(['encode-password', 'secret']);
    assert.equal(encoded.code, 0, encoded.stderr);
    const stored = encoded.stdout.trim();
    assert.match(stored, /^\{PBKDF2-SHA256\}10000\$/);
    assert.equal((await leveldap(['encode-password', '--verify', stored, 'secret'])).code, 0);
    assert.equal((await leveldap(['encode-password', '--verify', stored, 'Secret'])).code, 1);
  });

  test('--scheme and --iterations choose the scheme and its cost', async () => {
    const result = await leveldap(['encode-password', '--scheme', 'pbkdf2-sha512', '--iterations', '20000', 'secret']);
    assert.match(result.stdout, /^\{PBKDF2-SHA512\}20000\$/);
  });

  test('--verify exits 2 with a message for a malformed value, an unknown scheme, or a cost above the cap', async () => {
    const malformed = await leveldap(['encode-password', '--verify', '{SSHA}abc', 'secret']);
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /not valid base64|shorter than/);
    const unknown = await leveldap(['encode-password', '--verify', '{FOO}abc', 'secret']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown password scheme \{FOO\}/);
    const costly = await leveldap(['encode-password', '--max-iterations', '50000', '--verify', OPENLDAP_PBKDF2, 'secret']);
    assert.equal(costly.code, 2);
    assert.match(costly.stderr, /60000 iterations is above the limit of 50000/);
    assert.equal((await leveldap(['encode-password', '--verify', OPENLDAP_PBKDF2, 'secret'])).code, 0);
  });

  test('reads the password from standard input, less one line ending', async () => {
    const encoded = await leveldap(['encode-password', '--scheme', 'SSHA'], 'from stdin\n');
    assert.equal(encoded.code, 0, encoded.stderr);
    const stored = encoded.stdout.trim();
    assert.equal((await leveldap(['encode-password', '--verify', stored, 'from stdin'])).code, 0);
    assert.equal((await leveldap(['encode-password', '--verify', stored, '--password-file', '-'], 'from stdin\r\n')).code, 0);
  });

  test('reads the password from --password-file, bytes as they are', async () => {
    const file = join(dir, 'password');
    await writeFile(file, 'pässwörd-密码-🔑\n', { mode: 0o600 });
    const encoded = await leveldap(['encode-password', '--scheme', 'SSHA512', '--password-file', file]);
    assert.equal(encoded.code, 0, encoded.stderr);
    assert.equal((await leveldap(['encode-password', '--verify', encoded.stdout.trim(), 'pässwörd-密码-🔑'])).code, 0);
    const missing = await leveldap(['encode-password', '--password-file', join(dir, 'nope')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read password file .*ENOENT/);
  });

  test('an unknown scheme or a bad parameter is a usage error (exit 2)', async () => {
    const unknown = await leveldap(['encode-password', '--scheme', 'NOPE', 'x']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown password scheme "NOPE"; known: SHA, SSHA/);
    const weak = await leveldap(['encode-password', '--scheme', 'PBKDF2', '--iterations', '10', 'x']);
    assert.equal(weak.code, 2);
    assert.match(weak.stderr, /iterations for \{PBKDF2\} must be an integer from 1000/);
  });
});

describe('scheme plugins from the command line', () => {
  test('--scheme-plugin adds {SSHA3-512} to encode-password, --verify and schemes', async () => {
    const encoded = await leveldap(['encode-password', '--scheme-plugin', PLUGIN, '--scheme', 'SSHA3-512', 'secret']);
    assert.equal(encoded.code, 0, encoded.stderr);
    const stored = encoded.stdout.trim();
    assert.match(stored, /^\{SSHA3-512\}/);
    assert.equal((await leveldap(['encode-password', '--scheme-plugin', PLUGIN, '--verify', stored, 'secret'])).code, 0);
    assert.equal((await leveldap(['encode-password', '--scheme-plugin', PLUGIN, '--verify', stored, 'wrong'])).code, 1);
    const withoutPlugin = await leveldap(['encode-password', '--verify', stored, 'secret']);
    assert.equal(withoutPlugin.code, 2, 'without the plugin the scheme is unknown');
    const listed = await leveldap(['schemes', '--scheme-plugin', PLUGIN]);
    assert.match(listed.stdout, /SSHA3-512 .*saltLength=16 \(8\.\.64\) .*scheme plugin .*ssha3\.mjs/);
  });

  test('a plugin that is not a scheme, or reuses a name, is refused with exit 2', async () => {
    const broken = await leveldap(['schemes', '--scheme-plugin', fixturePath('plugins', 'not-a-scheme.mjs')]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /not-a-scheme\.mjs: a scheme needs a verify/);
    const duplicate = await leveldap(['schemes', '--scheme-plugin', fixturePath('plugins', 'duplicate-name.mjs')]);
    assert.equal(duplicate.code, 2);
    assert.match(duplicate.stderr, /scheme \{SSHA\} is already registered \(built-in\)/);
  });
});

describe('leveldap schemes and bench-schemes', () => {
  test('schemes lists every required scheme with its parameters, and --json is machine-readable', async () => {
    const listed = await leveldap(['schemes', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const parsed = JSON.parse(listed.stdout) as { schemes: { names: string[]; params: { name: string; default: number }[] }[] };
    const names = parsed.schemes.flatMap((scheme) => scheme.names);
    const required = ['SHA', 'SSHA', 'SHA256', 'SSHA256', 'SHA384', 'SSHA384', 'SHA512', 'SSHA512', 'PBKDF2',
      'PBKDF2-SHA1', 'PBKDF2-SHA256', 'PBKDF2-SHA512', 'CLEAR', 'PBKDF2_SHA256', 'PBKDF2-HMAC-SHA256', 'PBKDF2-HMAC-SHA512', 'PKCS5S2'];
    for (const name of required) assert.ok(names.includes(name), name);
    const pbkdf2 = parsed.schemes.find((scheme) => scheme.names.includes('PBKDF2-SHA256'));
    assert.deepEqual(pbkdf2?.params.map((p) => [p.name, p.default]), [['iterations', 10000]]);
  });

  test('bench-schemes --micro prints µs and ops/s per encode and verify', async () => {
    const result = await leveldap(['bench-schemes', '--micro', '--scheme', 'SSHA', '--scheme', 'PBKDF2-SHA256', '--millis', '30']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /SCHEME\s+PARAMS\s+ENCODE µs\s+ENCODE\/s\s+VERIFY µs\s+VERIFY\/s/);
    assert.match(result.stdout, /\nSSHA\s+saltLength=8\s+[\d.]+\s+[\d,]+\s+[\d.]+\s+[\d,]+/);
    assert.match(result.stdout, /\nPBKDF2-SHA256\s+iterations=10000\s+/);
  });
});

// A second of warm-up in each run: a just-started server's first binds, on this machine while
// other work runs, took longer than a half-second window without one (no bind counted).
describe('leveldap bench-schemes (a tiny full run)', () => {
  test('a well-formed Markdown table and SVG chart, slapd beside leveldap, a plugin scheme on leveldap only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-schemes-test-'));
    const svg = join(dir, 'chart.svg');
    const compare = slapdAvailable() ? ['--compare-slapd'] : [];
    try {
      const result = await leveldap(['bench-schemes', '--users', '20', '-d', '1', '--warm-up', '1', '-c', '2', '--svg', svg,
        '--scheme', 'SSHA', '--scheme', 'PBKDF2-SHA256:1000', '--scheme', 'SSHA3-512', '--scheme-plugin', fixturePath('plugins', 'ssha3.mjs'), ...compare]);
      assert.equal(result.code, 0, result.stderr);
      const rows = result.stdout.split('\n').filter((line) => line.startsWith('|'));
      assert.deepEqual(rows[0]!.split('|').map((cell) => cell.trim()).filter(Boolean), ['scheme', 'parameters', 'µs per verify', 'server',
        'binds/s', 'vs slapd', 'average ms', 'p99.9 ms', 'p99.99 ms', 'errors', 'binds per CPU-second', 'RSS MB',
        'RSS MB, most seen', 'users', 'hashing limit/s', 'of limit', 'all cores, no server/s', 'of all cores']);
      const body = rows.slice(2).map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
      const servers = body.map((cells) => `${cells[0]} ${cells[1]} ${cells[3]}`);
      const expected = [
        ...(compare.length ? ['{SSHA} - slapd'] : []), '{SSHA} - leveldap',
        ...(compare.length ? ['{PBKDF2-SHA256} iterations=1000 slapd'] : []), '{PBKDF2-SHA256} iterations=1000 leveldap', '{SSHA3-512} - leveldap'];
      assert.deepEqual(servers, expected);
      for (const cells of body) {
        assert.equal(cells.length, 18, cells.join('|'));
        assert.ok(Number(cells[4]!.replace(/,/g, '')) > 0, `binds/s in ${cells.join('|')}`);
        assert.equal(cells[9], '0', `errors in ${cells.join('|')}`);
        if (compare.length && cells[3] === 'leveldap' && cells[0] !== '{SSHA3-512}') assert.match(cells[5]!, /^\d+\.\d\dx$/);
        assert.ok(Number(cells[12]) >= Number(cells[11]), `the most resident memory seen is at least the end's in ${cells.join('|')}`);
        assert.equal(cells[13], '20', 'cheap schemes: every user asked for');
        assert.match(cells[15]!, /^\d+\.\d\d$/, 'binds/s over the hashing limit');
        assert.ok(Number(cells[16]!.replace(/,/g, '')) > 0, `verifications/s on every core in ${cells.join('|')}`);
        assert.match(cells[17]!, /^\d+\.\d\d$/, 'binds/s over what every core hashes');
      }
      const chart = await readFile(svg, 'utf8');
      assert.match(chart, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>\n[\s\S]*<\/svg>\n$/);
      assert.equal(chart.match(/<rect x="[\d.]+" y="[\d.]+" width="24" height="[\d.]+"/g)?.length, 2 * body.length, 'one bar per row and panel');
      for (const label of ['>{SSHA}</text>', '>{PBKDF2-SHA256}<tspan', '>1000 iterations</tspan>', '>{SSHA3-512}</text>']) assert.ok(chart.includes(label), label);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('leveldap bench-schemes: parameters, slapd\'s {ARGON2} and {CRYPT}, the bind cache', () => {
  const cells = (stdout: string): string[][] => stdout.split('\n').filter((line) => line.startsWith('|')).slice(2)
    .map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
  let dir = '';
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-schemes-test-')); });
  after(async () => { await rm(dir, { recursive: true, force: true }); });

  test('SCHEME:NAME=VALUE cases are made and measured with those parameters, on slapd too when it verifies them', async () => {
    const compare = slapdAvailable() ? ['--compare-slapd'] : [];
    const result = await leveldap(['bench-schemes', '--users', '8', '-d', '1', '--warm-up', '1', '-c', '2', '--svg', join(dir, 'params.svg'),
      '--scheme', 'ARGON2:memory=1024,time=1,parallelism=1', '--scheme', 'CRYPT:rounds=1000', ...compare]);
    assert.equal(result.code, 0, result.stderr);
    const body = cells(result.stdout);
    const slapd = (label: string) => (compare.length ? [`${label} slapd`] : []);
    assert.deepEqual(body.map((row) => `${row[0]} ${row[1]} ${row[3]}`), [
      ...slapd('{ARGON2} memory=1024 time=1 parallelism=1'), '{ARGON2} memory=1024 time=1 parallelism=1 leveldap',
      ...slapd('{CRYPT} rounds=1000'), '{CRYPT} rounds=1000 leveldap']);
    for (const row of body) {
      assert.equal(row[9], '0', `errors in ${row.join('|')}`);
      assert.ok(Number(row[4]!.replace(/,/g, '')) > 0, `binds/s in ${row.join('|')}`);
    }
    if (compare.length) assert.match(result.stdout, /slapd threads \d+, loglevel 0/);
  });

  test('--rounds N measures each server N times and shows its median round, every round\'s ratio in a note', async () => {
    const compare = slapdAvailable() ? ['--compare-slapd'] : [];
    const result = await leveldap(['bench-schemes', '--users', '4', '-d', '1', '--warm-up', '1', '-c', '2', '--svg', join(dir, 'rounds.svg'),
      '--rounds', '2', '--scheme', 'SSHA', ...compare]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(cells(result.stdout).map((row) => `${row[0]} ${row[3]}`), [...(compare.length ? ['{SSHA} slapd'] : []), '{SSHA} leveldap']);
    assert.match(result.stdout, /2 rounds a server \(alternating; the median round shown\)/);
    if (compare.length) assert.match(result.stdout, /\n- \{SSHA\}: leveldap \/ slapd round by round \d+\.\d\dx, \d+\.\d\dx \(median \d+\.\d\dx;/);
    const zero = await leveldap(['bench-schemes', '--rounds', '0']);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /--rounds must be a whole number from 1 to 100/);
  });

  test('--bind-cache-ttl serves every case with the cache, on leveldap only', async () => {
    const result = await leveldap(['bench-schemes', '--users', '4', '-d', '1', '--warm-up', '1', '-c', '2', '--svg', join(dir, 'cache.svg'),
      '--bind-cache-ttl', '60', '--scheme', 'ARGON2:memory=1024,time=1', ...(slapdAvailable() ? ['--compare-slapd'] : [])]);
    assert.equal(result.code, 0, result.stderr);
    const body = cells(result.stdout);
    assert.deepEqual(body.map((row) => `${row[0]} ${row[1]} ${row[3]} ${row[13]}`), ['{ARGON2} memory=1024 time=1 leveldap, bind cache 60 s 4']);
    assert.equal(body[0]![9], '0');
    assert.ok((await readFile(join(dir, 'cache.svg'), 'utf8')).includes('>bind cache, 4 users</tspan>'));
  });

  test('a parameter the scheme does not take or out of its range, or fewer users than connections, is a usage error', async () => {
    const range = await leveldap(['bench-schemes', '--scheme', 'ARGON2:memory=1']);
    assert.equal(range.code, 2);
    assert.match(range.stderr, /--scheme ARGON2:memory=1: memory for \{ARGON2\} must be an integer from 8/);
    const unknown = await leveldap(['bench-schemes', '--scheme', 'BCRYPT:rounds=5']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /takes no parameter "rounds"/);
    const syntax = await leveldap(['bench-schemes', '--scheme', 'ARGON2:memory=lots']);
    assert.equal(syntax.code, 2);
    assert.match(syntax.stderr, /NAME=VALUE with a whole number/);
    const users = await leveldap(['bench-schemes', '--users', '1', '-c', '2']);
    assert.equal(users.code, 2);
    assert.match(users.stderr, /--users \(1\) must be at least --connections \(2\)/);
  });
});
