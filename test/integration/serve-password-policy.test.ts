/**
 * The password policy through real binds (OpenLDAP's clients and raw connections): re-encoding
 * deprecated and weak values after a successful bind, lockout under 32 concurrent connections
 * and the admin's unlock, lockout against parallel guesses with a costly scheme (at most
 * --max-failures passwords verified, no success once locked, parallel binds of a legitimate
 * user served in turn), quality of new passwords (length, not the current one, generated ones
 * long enough), the verified-bind cache (hits in the debug log; none after a password change, none
 * for a locked account), and the --config file with flags overriding it. PBKDF2 runs at 1,000 or
 * 2,000 iterations where cost is not the point, and at 500,000 (some 200 ms a verification)
 * where binds must overlap.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistry } from '../../src/password/index.js';
import { DirectoryStore } from '../../src/store/index.js';
import { findProgram } from '../../src/harness/slapd.js';
import { accountLdif, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, type Credentials, type Response } from '../helpers/ldap-client.js';
import { bindRequest, exchange, modifyRequest } from '../helpers/ldap-requests.js';
import { leveldapBin } from '../helpers/paths.js';
import { run } from '../../src/harness/run.js';
import { skipUnavailable } from '../helpers/native-schemes.js';
import { eventually } from '../helpers/eventually.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (uid: string | number) => `uid=${typeof uid === 'number' ? `user.${uid}` : uid},${PEOPLE}`;
/** The DN as the server logs it (normalized). */
const logDn = (uid: string | number) => userDn(uid).toLowerCase();
const user = (uid: string | number, password = 'password'): Credentials => ({ dn: userDn(uid), password });
const registry = createRegistry();

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldappasswd', 'ldapmodify', 'ldapadd'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

interface LogLine { readonly msg?: string; readonly dn?: string; readonly [field: string]: unknown }

function logLines(server: LeveldapServer, msg: string, dn?: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of server.logs()) {
    try {
      const record = JSON.parse(line) as LogLine;
      if (record.msg === msg && (dn === undefined || record.dn === dn)) lines.push(record);
    } catch {
      // not a JSON line
    }
  }
  return lines;
}

/** The position of the first log line that `found` accepts (-1: none). */
function logIndex(server: LeveldapServer, found: (line: LogLine) => boolean): number {
  return server.logs().findIndex((line) => {
    try {
      return found(JSON.parse(line) as LogLine);
    } catch {
      return false; // not a JSON line
    }
  });
}

/** Helpers bound to one server. */
function clientOf(server: LeveldapServer) {
  const admin: Credentials = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  const tool = (name: string, args: readonly string[], as?: Credentials, input?: string) => ldapTool(name, server.url, args, as, input);
  return {
    admin,
    tool,
    whoami: async (as: Credentials) => (await tool('ldapwhoami', [], as)).code,
    passwd: (as: Credentials, ...args: string[]) => tool('ldappasswd', args, as),
    modify: (as: Credentials, dn: string, ...lines: string[]) => tool('ldapmodify', [], as, `${[`dn: ${dn}`, 'changetype: modify', ...lines].join('\n')}\n`),
    async read(dn: string, ...attributes: string[]): Promise<Record<string, string[]>> {
      const result = await tool('ldapsearch', ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', ...attributes], admin);
      assert.equal(result.code, 0, result.stderr);
      const entry = parseLdifOutput(result.stdout)[0]!;
      return Object.fromEntries(attributes.map((name) => [name, valuesOf(entry, name)]));
    },
  };
}

/** Binds on a raw connection of its own; the response. */
async function rawBind(server: LeveldapServer, dn: string, password: string): Promise<Response> {
  const connection = await RawConnection.open(server.port);
  try {
    return await exchange(connection, 1, bindRequest(1, dn, password));
  } finally {
    connection.destroy();
  }
}

describe('leveldap serve: re-encoding after bind (--deprecated-schemes, --upgrade-iterations)', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;

  before(async () => {
    const ldif = [
      accountLdif('old-ssha', await registry.encode('SSHA', Buffer.from('ssha-secret'))),
      accountLdif('old-sha', await registry.encode('SHA', Buffer.from('sha-secret'))),
      accountLdif('weak', await registry.encode('PBKDF2-SHA256', Buffer.from('weak-secret'), { iterations: 1000 })),
    ].join('\n');
    server = await startLeveldap({
      users: 5, ldif,
      args: ['--default-scheme', 'PBKDF2-SHA256', '--default-iterations', '2000', '--deprecated-schemes', 'SSHA,SHA', '--upgrade-iterations'],
    });
    client = clientOf(server);
  });
  after(async () => { await server?.stop(); });

  const reencoded = (uid: string) => logLines(server, 'password re-encoded after bind', logDn(uid));

  test('a wrong password re-encodes nothing; the right one answers, then the value is re-encoded with the default scheme and still binds', async () => {
    assert.equal(await client.whoami(user('old-ssha', 'wrong-secret')), 49);
    assert.match((await client.read(userDn('old-ssha'), 'userPassword')).userPassword![0]!, /^\{SSHA\}/);
    assert.equal(await client.whoami(user('old-ssha', 'ssha-secret')), 0);
    assert.ok(await eventually(() => reencoded('old-ssha').length === 1), 'a "password re-encoded after bind" log line');
    const [line] = reencoded('old-ssha');
    assert.equal(line!.from, 'SSHA');
    assert.equal(line!.to, 'PBKDF2-SHA256');
    assert.equal(line!.reason, 'deprecated scheme {SSHA}');
    const { userPassword, modifiersName } = await client.read(userDn('old-ssha'), 'userPassword', 'modifiersName');
    assert.equal(userPassword!.length, 1);
    assert.match(userPassword![0]!, /^\{PBKDF2-SHA256\}2000\$/);
    assert.deepEqual(modifiersName, [server.adminDn], 'a re-encoding is not a client\'s modification');
    assert.equal(await client.whoami(user('old-ssha', 'ssha-secret')), 0);
    assert.equal(await client.whoami(user('old-ssha', 'wrong-secret')), 49);
    assert.equal(reencoded('old-ssha').length, 1, 're-encoded once');
  });

  test('{SHA} likewise, and a PBKDF2 value below --default-iterations is upgraded; the log counts them', async () => {
    assert.equal(await client.whoami(user('old-sha', 'sha-secret')), 0);
    assert.equal(await client.whoami(user('weak', 'weak-secret')), 0);
    assert.ok(await eventually(() => reencoded('old-sha').length === 1 && reencoded('weak').length === 1));
    assert.equal(reencoded('weak')[0]!.reason, '1000 iterations, fewer than 2000');
    assert.match((await client.read(userDn('weak'), 'userPassword')).userPassword![0]!, /^\{PBKDF2-SHA256\}2000\$/);
    assert.equal(await client.whoami(user('weak', 'weak-secret')), 0);
    const counters = logLines(server, 'password re-encoded after bind').map((line) => line.reencoded);
    assert.deepEqual(counters, [1, 2, 3]);
  });

  test('a value in a scheme that is neither deprecated nor weak is left as it is', async () => {
    const before = (await client.read(userDn(1), 'userPassword')).userPassword;
    assert.match(before![0]!, /^\{SSHA512\}/);
    assert.equal(await client.whoami(user(1)), 0);
    assert.equal(await client.whoami(user('old-ssha', 'ssha-secret')), 0, 'and a bind of an account already re-encoded');
    assert.deepEqual((await client.read(userDn(1), 'userPassword')).userPassword, before);
    assert.equal(reencoded('user.1').length, 0);
  });
});

/** Written by slappasswd with OpenLDAP 2.5's argon2 module (its defaults: argon2i, m=4096, t=3, p=1), password "secret". */
const SLAPD_ARGON2 = '{ARGON2}$argon2i$v=19$m=4096,t=3,p=1$YwdxQEzdUoz8qkzYNLduUg$yGVsgfd7chScs6zeVFOlsp8MDGKUXfCX+j/p5XdwC9M';

describe('leveldap serve: Argon2id by policy, values cheaper than it re-encoded (--default-params, --upgrade-cost)', { skip: skip || skipUnavailable('ARGON2') }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;

  before(async () => {
    const ldif = [
      accountLdif('slapd-argon2', SLAPD_ARGON2),
      accountLdif('strong', await registry.encode('ARGON2', Buffer.from('strong-secret'), { memory: 65_536, time: 3, parallelism: 1 })),
      accountLdif('sha-crypt', await registry.encode('CRYPT', Buffer.from('crypt-secret'), { rounds: 5000 })),
    ].join('\n');
    server = await startLeveldap({
      users: 2, ldif, args: ['--default-scheme', 'ARGON2', '--default-params', 'memory=19456,time=2,parallelism=1', '--upgrade-cost'],
    });
    client = clientOf(server);
  });
  after(async () => { await server?.stop(); });

  const reencoded = (uid: string) => logLines(server, 'password re-encoded after bind', logDn(uid));

  test("slapd's argon2i at 4 MiB binds, then is re-encoded as argon2id at the policy's 19 MiB and binds again", async () => {
    assert.equal(await client.whoami(user('slapd-argon2', 'secret')), 0);
    assert.ok(await eventually(() => reencoded('slapd-argon2').length === 1), 'a "password re-encoded after bind" log line');
    assert.equal(reencoded('slapd-argon2')[0]!.reason, '4096 KiB of memory, less than the 19456 written now');
    assert.match((await client.read(userDn('slapd-argon2'), 'userPassword')).userPassword![0]!, /^\{ARGON2\}\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await client.whoami(user('slapd-argon2', 'secret')), 0);
  });

  test('a value costing more than the policy asks, and one in measures Argon2 does not share (SHA-crypt rounds), are left alone', async () => {
    assert.equal(await client.whoami(user('strong', 'strong-secret')), 0);
    assert.equal(await client.whoami(user('sha-crypt', 'crypt-secret')), 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(reencoded('strong').length + reencoded('sha-crypt').length, 0);
  });

  test('a password set online is written with the policy\'s parameters', async () => {
    assert.equal((await client.passwd(user('sha-crypt', 'crypt-secret'), '-s', 'a-new-secret')).code, 0);
    assert.match((await client.read(userDn('sha-crypt'), 'userPassword')).userPassword![0]!, /^\{ARGON2\}\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe('leveldap serve: lockout (--max-failures 5 --lockout-duration 0)', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;

  before(async () => {
    server = await startLeveldap({ users: 10, args: ['--max-failures', '5', '--lockout-duration', '0', '--default-iterations', '1000'] });
    client = clientOf(server);
  });
  after(async () => { await server?.stop(); });

  test('binds as an entry without a password (an OU) write nothing into it, however many', async () => {
    const people = 'ou=People,dc=example,dc=com';
    for (let i = 0; i < 7; i += 1) assert.equal((await rawBind(server, people, `guess-${i}`)).code, 49);
    assert.deepEqual(await client.read(people, 'pwdAccountLockedTime', 'pwdFailureTime'), { pwdAccountLockedTime: [], pwdFailureTime: [] });
  });

  test('32 wrong binds at once on 32 connections lock the account once; the right password then answers 49', async () => {
    const connections = await Promise.all(Array.from({ length: 32 }, () => RawConnection.open(server.port)));
    try {
      const answers = await Promise.all(connections.map((connection) => exchange(connection, 1, bindRequest(1, userDn(1), 'wrong'))));
      assert.deepEqual(answers.map((answer) => answer.code), Array(32).fill(49));
    } finally {
      connections.forEach((connection) => connection.destroy());
    }
    assert.equal(await client.whoami(user(1)), 49);
    const locked = await client.read(userDn(1), 'pwdAccountLockedTime', 'pwdFailureTime');
    assert.equal(locked.pwdAccountLockedTime!.length, 1);
    assert.match(locked.pwdAccountLockedTime![0]!, /^\d{14}\.\d{3}Z$/);
    assert.ok(locked.pwdFailureTime!.length >= 1 && locked.pwdFailureTime!.length <= 5, String(locked.pwdFailureTime));
    const lines = () => logLines(server, 'account locked after failed binds', logDn(1));
    assert.ok(await eventually(() => lines().length === 1), `one lock, written once: ${lines().length} lines`);
    assert.equal(lines()[0]!.failures, 5);
  });

  test('a locked account answers exactly as a wrong password does', async () => {
    const locked = await rawBind(server, userDn(1), 'password');
    const wrong = await rawBind(server, userDn(2), 'wrong');
    assert.deepEqual([locked.code, locked.message, locked.matchedDn], [wrong.code, wrong.message, wrong.matchedDn]);
  });

  test('the lockout attributes are operational: shown for "+" or by name, not for "*"; only the admin may change them', async () => {
    const all = await client.tool('ldapsearch', ['-LLL', '-b', userDn(1), '-s', 'base', '(objectClass=*)', '*'], client.admin);
    assert.doesNotMatch(all.stdout, /pwdAccountLockedTime/);
    const operational = await client.tool('ldapsearch', ['-LLL', '-b', userDn(1), '-s', 'base', '(objectClass=*)', '+'], client.admin);
    assert.match(operational.stdout, /pwdAccountLockedTime: /);
    const byUser = await client.modify(user(3), userDn(1), 'delete: pwdAccountLockedTime');
    assert.equal(byUser.code, 50, byUser.stderr);
    assert.equal(await client.whoami(user(1)), 49);
  });

  test('the admin unlocks by deleting pwdAccountLockedTime; the next success clears pwdFailureTime', async () => {
    const unlock = await client.modify(client.admin, userDn(1), 'delete: pwdAccountLockedTime');
    assert.equal(unlock.code, 0, unlock.stderr);
    assert.equal(await client.whoami(user(1)), 0);
    assert.ok(await eventually(async () => (await client.read(userDn(1), 'pwdFailureTime')).pwdFailureTime!.length === 0));
    assert.equal(await client.whoami(user(1)), 0);
  });

  test('a successful bind resets the count: 4 wrong, right, 4 wrong still leaves the account open', async () => {
    for (let i = 0; i < 4; i++) assert.equal((await rawBind(server, userDn(4), 'wrong')).code, 49);
    assert.equal((await rawBind(server, userDn(4), 'password')).code, 0);
    for (let i = 0; i < 4; i++) assert.equal((await rawBind(server, userDn(4), 'wrong')).code, 49);
    assert.equal(await client.whoami(user(4)), 0);
    assert.equal(logLines(server, 'account locked after failed binds', logDn(4)).length, 0);
  });

  test('the admin locks an account by hand with OpenLDAP\'s 000001010000Z, and unlocks it', async () => {
    assert.equal((await client.modify(client.admin, userDn(5), 'add: pwdAccountLockedTime', 'pwdAccountLockedTime: 000001010000Z')).code, 0);
    assert.equal(await client.whoami(user(5)), 49);
    assert.equal((await client.modify(client.admin, userDn(5), 'replace: pwdAccountLockedTime')).code, 0);
    assert.equal(await client.whoami(user(5)), 0);
  });

  test('the admin is never locked out; unknown DNs lock nothing', async () => {
    for (let i = 0; i < 8; i++) assert.equal((await rawBind(server, server.adminDn, 'wrong')).code, 49);
    assert.equal(await client.whoami(client.admin), 0);
    for (let i = 0; i < 8; i++) assert.equal((await rawBind(server, userDn('ghost'), 'wrong')).code, 49);
    assert.equal(logLines(server, 'account locked after failed binds').length, 1, 'only user.1\'s lock');
  });

  test('quality with the default policy: at least 8 characters, at most 4096 bytes', async () => {
    const short = await client.passwd(user(6), '-s', 'seven77');
    assert.equal(short.code, 1);
    assert.match(short.stdout + short.stderr, /Constraint violation \(19\)/);
    assert.match(short.stdout + short.stderr, /too short: 7 characters, the password policy asks for at least 8/);
    assert.equal((await client.passwd(user(6), '-s', 'eight888')).code, 0);
    assert.equal(await client.whoami(user(6, 'eight888')), 0);
    const long = await client.passwd(user(6, 'eight888'), '-s', 'x'.repeat(4097));
    assert.equal(long.code, 1);
    assert.match(long.stdout + long.stderr, /too long: 4097 bytes, at most 4096/);
    assert.equal(await client.whoami(user(6, 'eight888')), 0, 'unchanged');
  });
});

describe('leveldap serve: lockout records and password changes, as ppolicy (--max-failures 3 --lockout-duration 600; review 2026-12-08)', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;

  before(async () => {
    server = await startLeveldap({ users: 10, args: ['--max-failures', '3', '--lockout-duration', '600', '--default-iterations', '1000'] });
    client = clientOf(server);
  });
  after(async () => { await server?.stop(); });

  const wrong = async (n: number, times: number) => {
    for (let i = 0; i < times; i++) assert.equal((await rawBind(server, userDn(n), 'wrong')).code, 49);
  };

  test('the admin replacing pwdAccountLockedTime with a time past the duration unlocks: the right password binds, the failures go', async () => {
    await wrong(1, 3);
    assert.equal(await client.whoami(user(1)), 49, 'locked');
    const unlock = await client.modify(client.admin, userDn(1), 'replace: pwdAccountLockedTime', 'pwdAccountLockedTime: 20000101000000Z');
    assert.equal(unlock.code, 0, unlock.stderr);
    assert.deepEqual((await client.read(userDn(1), 'pwdFailureTime')).pwdFailureTime, [], 'replacing the lock clears the failures, as deleting it does');
    assert.equal(await client.whoami(user(1)), 0);
  });

  test('failures before a password change do not count after it (ppolicy removes pwdFailureTime): by the admin\'s ldappasswd, or the user\'s ldapmodify', async () => {
    await wrong(2, 2);
    const reset = await client.passwd(client.admin, '-s', 'brand-new-2', userDn(2));
    assert.equal(reset.code, 0, reset.stderr);
    await wrong(2, 1);
    assert.equal(await client.whoami(user(2, 'brand-new-2')), 0, 'two failures before the change and one after do not lock');
    await wrong(3, 2);
    const changed = await client.modify(user(3), userDn(3), 'replace: userPassword', 'userPassword: brand-new-3');
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual((await client.read(userDn(3), 'pwdFailureTime')).pwdFailureTime, []);
    await wrong(3, 2);
    assert.equal(await client.whoami(user(3, 'brand-new-3')), 0);
  });

  test('the admin\'s password is hashed as every password written: the default scheme at --default-iterations', async () => {
    const own = await startLeveldap({ users: 1, args: ['--default-iterations', '1000'] });
    try {
      await own.terminate();
      const store = await DirectoryStore.open(own.dataDir);
      try {
        assert.match((await store.getSetting('adminPassword')) ?? '', /^\{PBKDF2-SHA256\}1000\$/);
      } finally {
        await store.close();
      }
    } finally {
      await own.stop();
    }
  });

  test('a password change records pwdChangedTime (operational, not the user\'s to write)', async () => {
    const before = Date.now() - 1000;
    assert.equal((await client.passwd(user(4), '-s', 'brand-new-4')).code, 0);
    const [time] = (await client.read(userDn(4), 'pwdChangedTime')).pwdChangedTime!;
    assert.ok(time, 'pwdChangedTime is set');
    const at = Date.parse(time.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d).*Z$/, '$1-$2-$3T$4:$5:$6Z'));
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, time);
    const byUser = await client.modify(user(4, 'brand-new-4'), userDn(4), 'replace: pwdChangedTime', 'pwdChangedTime: 20000101000000Z');
    assert.equal(byUser.code, 50, byUser.stderr);
  });
});

describe('leveldap serve: lockout against parallel guesses (--max-failures 3, PBKDF2 at 500,000 iterations)', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;
  const ACCOUNTS = ['race', 'late', 'pool', 'admin-lock'];
  const secret = (uid: string) => `${uid}-secret`;

  before(async () => {
    // admin-lock's verification must outlast the test's reading of cn=Monitor: 2,000,000 iterations (about 0.3 s here).
    const iterations = (uid: string) => (uid === 'admin-lock' ? 2_000_000 : 500_000);
    const stored = await Promise.all(ACCOUNTS.map((uid) => registry.encode('PBKDF2-SHA256', Buffer.from(secret(uid)), { iterations: iterations(uid) })));
    server = await startLeveldap({
      users: 5, ldif: ACCOUNTS.map((uid, i) => accountLdif(uid, stored[i]!)).join('\n'),
      args: ['--max-failures', '3', '--lockout-duration', '0', '--log-level', 'debug'],
    });
    client = clientOf(server);
  });
  after(async () => { await server?.stop(); });

  /** Binds of the account refused without verifying its password (locked, or locked while waiting its turn). */
  const refused = (uid: string) => logLines(server, 'bind refused: the account is locked', logDn(uid)).length
    + logLines(server, 'bind refused: the account was locked during the verification', logDn(uid)).length;
  const waited = (uid: string) => logLines(server, 'bind waits: every attempt left is being verified', logDn(uid)).length;
  const locks = (uid: string) => logLines(server, 'account locked after failed binds', logDn(uid));
  /** Binds the server has begun and not answered yet (cn=Monitor; the reading tool's own bind has been answered). */
  async function bindsInFlight(): Promise<number> {
    const counts = await client.read('cn=Bind,cn=Operations,cn=Monitor', 'monitorOpInitiated', 'monitorOpCompleted');
    return Number(counts.monitorOpInitiated![0]) - Number(counts.monitorOpCompleted![0]);
  }
  /** The access log's lines for binds of the account, in the order they answered. */
  const bindAnswers = (uid: string) => logLines(server, 'operation').filter((line) => line.op === 'bind' && line.dn === userDn(uid));

  /** Opens `passwords.length` connections, then sends one bind on each at once; the answers' codes. */
  async function parallelBinds(uid: string, passwords: readonly string[]): Promise<number[]> {
    const connections = await Promise.all(passwords.map(() => RawConnection.open(server.port)));
    try {
      const answers = await Promise.all(connections.map((connection, i) => exchange(connection, 1, bindRequest(1, userDn(uid), passwords[i]!))));
      return answers.map((answer) => answer.code!);
    } finally {
      connections.forEach((connection) => connection.destroy());
    }
  }

  test('10 wrong and the right password at once on 11 connections: at most 3 verified before the lock, no success after it', async () => {
    const codes = await parallelBinds('race', [...Array.from({ length: 10 }, (_, i) => `wrong-${i}`), secret('race')]);
    const right = codes.at(-1);
    assert.deepEqual(codes.slice(0, -1), Array(10).fill(49));
    assert.ok(await eventually(() => bindAnswers('race').length === 11), 'the 11 binds logged (and every line before them)');
    assert.equal(locks('race').length, 1, 'the account is locked');
    assert.equal(locks('race')[0]!.failures, 3, 'the lock counts the limit\'s worth of failures');
    const verified = 11 - refused('race');
    if (right === 49) {
      assert.equal(verified, 3, `exactly 3 of the 11 passwords verified, all wrong (${refused('race')} refused)`);
    } else {
      // The right one was among the first 3 verified: its success forgot the failures before it.
      assert.equal(right, 0);
      assert.ok(verified >= 4 && verified <= 6, `${verified} verified: up to 3 before the success (which resets the count), 3 after`);
      assert.equal(bindAnswers('race').filter((line) => line.code === 0).length, 1);
      const success = logIndex(server, (line) => line.msg === 'operation' && line.op === 'bind' && line.dn === userDn('race') && line.code === 0);
      const lock = logIndex(server, (line) => line.msg === 'account locked after failed binds' && line.dn === logDn('race'));
      assert.ok(success >= 0 && success < lock, 'the success answered before the lock');
    }
    assert.equal(await client.whoami(user('race', secret('race'))), 49, 'locked now');
  });

  test('the right password sent while 3 wrong ones are being verified waits, then answers 49: the account got locked', async () => {
    const connections = await Promise.all(Array.from({ length: 11 }, () => RawConnection.open(server.port)));
    try {
      const wrong = connections.slice(0, 10).map((connection, i) => exchange(connection, 1, bindRequest(1, userDn('late'), `wrong-${i}`)));
      assert.ok(await eventually(() => waited('late') >= 7 || locks('late').length > 0), 'the wrong binds arrived');
      assert.equal(waited('late'), 7, '3 wrong passwords being verified, 7 binds waiting, the lock not yet set');
      const right = await exchange(connections[10]!, 1, bindRequest(1, userDn('late'), secret('late')));
      assert.equal(right.code, 49, 'no success once the attempts are used up');
      assert.deepEqual((await Promise.all(wrong)).map((answer) => answer.code), Array(10).fill(49));
    } finally {
      connections.forEach((connection) => connection.destroy());
    }
    assert.ok(await eventually(() => bindAnswers('late').length === 11), 'the 11 binds logged (and every line before them)');
    assert.equal(waited('late'), 8, 'the right password arrived before the lock: it waited its turn');
    assert.equal(refused('late'), 8, 'only 3 of the 11 passwords verified');
    assert.equal(locks('late').length, 1);
    assert.equal(locks('late')[0]!.failures, 3);
    assert.equal(bindAnswers('late').filter((line) => line.code === 0).length, 0);
    assert.equal((await client.read(userDn('late'), 'pwdAccountLockedTime')).pwdAccountLockedTime!.length, 1);
  });

  test('a legitimate user binding on 10 connections at once is served in turns of 3: every bind succeeds, nothing is locked', async () => {
    assert.deepEqual(await parallelBinds('pool', Array(10).fill(secret('pool'))), Array(10).fill(0));
    assert.ok(await eventually(() => bindAnswers('pool').length === 10));
    assert.ok(waited('pool') > 0, 'some binds waited their turn');
    assert.equal(refused('pool'), 0);
    assert.equal(locks('pool').length, 0);
  });

  test('a lock the admin stores while the right password is being verified: that bind answers 49', async () => {
    const admin = await RawConnection.open(server.port);
    const binding = await RawConnection.open(server.port);
    try {
      assert.equal((await exchange(admin, 1, bindRequest(1, server.adminDn, server.adminPassword))).code, 0);
      const bind = exchange(binding, 1, bindRequest(1, userDn('admin-lock'), secret('admin-lock')));
      // The lock is sent once the bind is being verified.
      assert.ok(await eventually(async () => (await bindsInFlight()) === 1, 5000), 'the bind is in progress');
      const lock = await exchange(admin, 2, modifyRequest(2, userDn('admin-lock'), [{ op: 'add', attribute: 'pwdAccountLockedTime', values: ['000001010000Z'] }]));
      assert.equal(lock.code, 0);
      assert.equal((await bind).code, 49);
    } finally {
      admin.destroy();
      binding.destroy();
    }
    assert.ok(await eventually(() => bindAnswers('admin-lock').length === 1));
    assert.equal(logLines(server, 'bind refused: the account was locked during the verification', logDn('admin-lock')).length, 1);
    assert.equal((await client.modify(client.admin, userDn('admin-lock'), 'delete: pwdAccountLockedTime')).code, 0);
    assert.equal(await client.whoami(user('admin-lock', secret('admin-lock'))), 0, 'unlocked, it binds');
  });
});

describe('leveldap serve: quality of new passwords, --config with a flag overriding it', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;
  let dir: string;
  const LONG = 'twenty-five-characters-ok';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leveldap-policy-config-'));
    const config = join(dir, 'policy.json');
    await writeFile(config, JSON.stringify({ minPasswordLength: 30, defaultScheme: 'SSHA256' }));
    server = await startLeveldap({ users: 10, args: ['--config', config, '--min-password-length', '20'] });
    client = clientOf(server);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const refusedWith = (result: { code: number; stdout: string; stderr: string }, pattern: RegExp) => {
    assert.match(result.stdout + result.stderr, /Constraint violation \(19\)/);
    assert.match(result.stdout + result.stderr, pattern);
  };

  test('too short (19) through ldappasswd, ldapmodify and ldapadd; the file\'s 30 is overridden by the flag\'s 20', async () => {
    refusedWith(await client.passwd(user(1), '-s', 'only-nineteen-chars'), /too short: 19 characters, the password policy asks for at least 20/);
    refusedWith(await client.modify(user(1), userDn(1), 'replace: userPassword', 'userPassword: only-nineteen-chars'), /too short/);
    refusedWith(await client.modify(client.admin, userDn(1), 'replace: userPassword', 'userPassword: short'), /too short/);
    const add = await client.tool('ldapadd', [], client.admin,
      `dn: uid=newbie,${PEOPLE}\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: newbie\nuserPassword: short\n`);
    refusedWith(add, /too short/);
    assert.equal(await client.whoami(user(1)), 0, 'user.1 keeps its password');
    assert.equal((await client.passwd(user(1), '-s', LONG)).code, 0);
    assert.match((await client.read(userDn(1), 'userPassword')).userPassword![0]!, /^\{SSHA256\}/, 'defaultScheme from the file');
    assert.equal(await client.whoami(user(1, LONG)), 0);
  });

  test('the current password again (19), by ldappasswd or ldapmodify, from the user or the admin', async () => {
    assert.equal((await client.passwd(client.admin, '-s', LONG, userDn(2))).code, 0);
    refusedWith(await client.passwd(user(2, LONG), '-s', LONG), /the new password is the same as the current one/);
    refusedWith(await client.modify(user(2, LONG), userDn(2), 'replace: userPassword', `userPassword: ${LONG}`), /same as the current one/);
    refusedWith(await client.passwd(client.admin, '-s', LONG, userDn(2)), /same as the current one/);
    assert.equal(await client.whoami(user(2, LONG)), 0);
  });

  test('a missing entry still answers 32 before its new password is judged', async () => {
    const ghost = await client.passwd(client.admin, '-s', 'x', userDn('ghost'));
    assert.match(ghost.stdout + ghost.stderr, /No such object \(32\)/);
  });

  test('a pre-hashed value from the admin skips the quality check (it cannot be inspected)', async () => {
    const hashed = await registry.encode('SSHA', Buffer.from('x'));
    const set = await client.modify(client.admin, userDn(3), 'replace: userPassword', `userPassword: ${hashed}`);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(await client.whoami(user(3, 'x')), 0);
  });

  test('a generated password is as long as the policy asks (20, not the usual 16) and binds', async () => {
    const result = await client.passwd(user(4));
    assert.equal(result.code, 0, result.stderr);
    const generated = /New password: (\S+)/.exec(result.stdout)?.[1];
    assert.equal(generated?.length, 20, result.stdout);
    assert.equal(await client.whoami(user(4, generated)), 0);
  });
});

describe('leveldap serve: verified-bind cache (--bind-cache-ttl 60)', { skip }, () => {
  let server: LeveldapServer;
  let client: ReturnType<typeof clientOf>;

  before(async () => {
    server = await startLeveldap({
      users: 5,
      args: ['--bind-cache-ttl', '60', '--max-failures', '3', '--lockout-duration', '0', '--default-iterations', '1000', '--log-level', 'debug'],
    });
    client = clientOf(server);
    for (const n of [1, 3]) assert.equal((await client.passwd(client.admin, '-s', `cached-secret-${n}`, userDn(n))).code, 0);
  });
  after(async () => { await server?.stop(); });

  const hits = (n: number) => logLines(server, 'verified-bind cache hit', logDn(n)).length;
  const bindsLogged = (n: number) => logLines(server, 'operation', userDn(n)).filter((line) => line.op === 'bind').length;

  /**
   * ldapwhoami, then a wait for the bind's access-log line: it is written after the answer and
   * after any cache-hit line of that bind, which ldapwhoami can see before the test reads the log.
   */
  const whoami = async (credentials: Credentials, n: number): Promise<number> => {
    const before = bindsLogged(n);
    const code = await client.whoami(credentials);
    assert.ok(await eventually(() => bindsLogged(n) > before), 'the bind\'s access-log line');
    return code;
  };

  test('a repeat bind of a PBKDF2 value is a cache hit with the same answer; after ldappasswd, the old password fails and no bind hits the old entry', async () => {
    assert.match((await client.read(userDn(1), 'userPassword')).userPassword![0]!, /^\{PBKDF2-SHA256\}1000\$/);
    assert.equal(await whoami(user(1, 'cached-secret-1'), 1), 0);
    assert.equal(hits(1), 0, 'the first bind verifies');
    assert.equal(await whoami(user(1, 'cached-secret-1'), 1), 0);
    assert.equal(hits(1), 1, 'the second comes from the cache');
    assert.equal(await whoami(user(1, 'not-the-secret'), 1), 49);
    assert.equal(hits(1), 1, 'a wrong password is never a hit');

    const changed = await client.passwd(user(1, 'cached-secret-1'), '-s', 'changed-secret-1');
    assert.equal(changed.code, 0, changed.stderr);
    const afterChange = hits(1);
    assert.equal(await whoami(user(1, 'cached-secret-1'), 1), 49, 'the old password fails within the TTL');
    assert.equal(hits(1), afterChange, 'the cache did not answer for the old password');
    assert.equal(await whoami(user(1, 'changed-secret-1'), 1), 0);
    assert.equal(hits(1), afterChange, 'the new value is verified first');
    assert.equal(await whoami(user(1, 'changed-secret-1'), 1), 0);
    assert.equal(hits(1), afterChange + 1);
  });

  test('cheap schemes are not cached (SSHA512 binds always verify)', async () => {
    assert.equal(await whoami(user(2), 2), 0);
    assert.equal(await whoami(user(2), 2), 0);
    assert.equal(hits(2), 0);
  });

  test('a locked account never reaches the cache', async () => {
    assert.equal(await whoami(user(3, 'cached-secret-3'), 3), 0);
    assert.equal(await whoami(user(3, 'cached-secret-3'), 3), 0);
    assert.equal(hits(3), 1);
    for (let i = 0; i < 3; i++) assert.equal((await rawBind(server, userDn(3), 'wrong')).code, 49);
    assert.equal(await whoami(user(3, 'cached-secret-3'), 3), 49);
    assert.equal(hits(3), 1);
  });
});

describe('--config: usage errors, and import-ldif\'s import scheme', () => {
  let dir: string;
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'leveldap-policy-cli-')); });
  after(async () => { await rm(dir, { recursive: true, force: true }); });

  const leveldap = (...args: string[]) => run(process.execPath, [leveldapBin, ...args]);

  test('an unknown key, a bad value or a bad flag (policy, --cache-mb or --threads) stops serve with exit status 2 before the database is touched', async () => {
    const config = join(dir, 'bad.json');
    const data = join(dir, 'never-created');
    await writeFile(config, '{"maxFailures": 5, "lockoutDurationSeconds": 60}');
    const unknown = await leveldap('serve', '--data', data, '--port', '0', '--config', config);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown setting "lockoutDurationSeconds"/);
    await writeFile(config, '{"bindCacheTtl": "60"}');
    const wrongType = await leveldap('serve', '--data', data, '--port', '0', '--config', config);
    assert.equal(wrongType.code, 2);
    assert.match(wrongType.stderr, /"bindCacheTtl" must be a whole number from 0 to 86400/);
    const badFlag = await leveldap('serve', '--data', data, '--port', '0', '--max-failures', '-1');
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /--max-failures must be a whole number/);
    const deprecatedDefault = await leveldap('serve', '--data', data, '--port', '0', '--deprecated-schemes', 'SSHA,pbkdf2-sha256');
    assert.equal(deprecatedDefault.code, 2);
    assert.match(deprecatedDefault.stderr, /cannot also be deprecated/);
    const badCache = await leveldap('serve', '--data', data, '--port', '0', '--cache-mb', '0');
    assert.equal(badCache.code, 2);
    assert.match(badCache.stderr, /--cache-mb 0: a whole number of MiB, at least 1/);
    for (const threads of ['0', '1.5', '65']) {
      const badThreads = await leveldap('serve', '--data', data, '--port', '0', '--threads', threads);
      assert.equal(badThreads.code, 2);
      assert.match(badThreads.stderr, new RegExp(`--threads ${threads.replace('.', '\\.')}: a whole number from 1 to 64`));
    }
    for (const port of ['abc', '99999', '-1']) {
      const badPort = await leveldap('serve', '--data', data, '--port', port);
      assert.equal(badPort.code, 2, `--port ${port}: ${badPort.stdout}${badPort.stderr}`);
      assert.match(badPort.stderr, /--port: a port number from 0 to 65535/);
      assert.doesNotMatch(badPort.stderr, /\n\s+at /, 'no stack');
    }
    assert.equal(existsSync(data), false);
  });

  test('import-ldif hashes with the file\'s importScheme; --scheme overrides it', async () => {
    const config = join(dir, 'import.json');
    await writeFile(config, JSON.stringify({ importScheme: 'SSHA384', defaultScheme: 'SSHA256' }));
    const ldif = (await leveldap('make-ldif', '--users', '1')).stdout;
    const stored = async (data: string, ...args: string[]) => {
      const imported = await run(process.execPath, [leveldapBin, 'import-ldif', '-', '--data', data, '--config', config, ...args], ldif);
      assert.equal(imported.code, 0, imported.stderr);
      const exported = (await leveldap('export-ldif', '--data', data)).stdout;
      const value = /^userPassword:: (\S+)$/m.exec(exported)?.[1];
      return Buffer.from(value ?? '', 'base64').toString();
    };
    assert.match(await stored(join(dir, 'db1')), /^\{SSHA384\}/);
    assert.match(await stored(join(dir, 'db2'), '--scheme', 'SSHA512'), /^\{SSHA512\}/);
  });
});
