/**
 * The access-control matrix through `leveldap serve` and the OpenLDAP clients: anonymous, a user
 * on its own entry, a user on another's entry, and the admin, each trying to read an entry, read
 * its userPassword (returned, filtered on, compared), read its password policy state
 * (pwdAccountLockedTime and pwdFailureTime, the admin wrote them: returned for `+` and by name,
 * filtered on, compared), write it, and write its userPassword. The expected table is written out
 * here, independently of src/server/access.ts. Then the writes a user or anonymous client may
 * never do, and --no-anonymous-read. serve-policy-state.test.ts has the rest on the policy state.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, type Credentials } from '../helpers/ldap-client.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const user = (n: number, password = 'password'): Credentials => ({ dn: userDn(n), password });

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldapcompare', 'ldapmodify', 'ldapadd', 'ldapdelete', 'ldapmodrdn'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

type Right = 'read entry' | 'read userPassword' | 'read policy state' | 'write entry' | 'write userPassword';
interface Row {
  readonly requester: string;
  /** Who is bound ('admin' for the admin, undefined for anonymous). */
  readonly as: number | 'admin' | undefined;
  /** The entry the row works on (each row its own, so password changes do not interfere). */
  readonly target: number;
  readonly allowed: Readonly<Record<Right, boolean>>;
}

const MATRIX: readonly Row[] = [
  { requester: 'anonymous', as: undefined, target: 10, allowed: {
    'read entry': true, 'read userPassword': false, 'read policy state': false, 'write entry': false, 'write userPassword': false } },
  { requester: 'user on its own entry', as: 11, target: 11, allowed: {
    'read entry': true, 'read userPassword': true, 'read policy state': true, 'write entry': false, 'write userPassword': true } },
  { requester: 'user on another entry', as: 13, target: 12, allowed: {
    'read entry': true, 'read userPassword': false, 'read policy state': false, 'write entry': false, 'write userPassword': false } },
  { requester: 'admin', as: 'admin', target: 14, allowed: {
    'read entry': true, 'read userPassword': true, 'read policy state': true, 'write entry': true, 'write userPassword': true } },
];

/** The policy state the admin writes on every target (lockout is off on this server: it locks nothing). */
const LOCKED_AT = '20240102030405.678Z';
const FAILED_AT = ['20240102030401.000Z', '20240102030403.500Z'];

describe('leveldap serve: access control', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    server = await startLeveldap({ users: 20 });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
    for (const row of MATRIX) {
      const state = await modifyAs(admin, userDn(row.target), 'replace: pwdAccountLockedTime', `pwdAccountLockedTime: ${LOCKED_AT}`,
        '-', 'replace: pwdFailureTime', ...FAILED_AT.map((time) => `pwdFailureTime: ${time}`));
      assert.equal(state.code, 0, state.stderr);
    }
  });
  after(async () => { await server?.stop(); });

  const tool = (name: string, args: readonly string[], as?: Credentials, input?: string) => ldapTool(name, server.url, args, as, input);
  const credentialsOf = (row: Row): Credentials | undefined => (row.as === 'admin' ? admin : row.as === undefined ? undefined : user(row.as));

  async function readAs(as: Credentials | undefined, dn: string, filter: string, ...attributes: string[]) {
    const result = await tool('ldapsearch', ['-LLL', '-b', dn, '-s', 'base', filter, ...attributes], as);
    return { code: result.code, entries: result.code === 0 ? parseLdifOutput(result.stdout) : [], stderr: result.stderr };
  }

  const modifyAs = (as: Credentials | undefined, dn: string, ...lines: string[]) =>
    tool('ldapmodify', [], as, `${[`dn: ${dn}`, 'changetype: modify', ...lines].join('\n')}\n`);

  /**
   * Whether the requester sees the target's lock and failures, every way of asking agreeing: `+`,
   * by name, filtered on (presence and the exact time), compared (a refusal is 50).
   */
  async function readPolicyState(requester: string, as: Credentials | undefined, target: string): Promise<boolean> {
    const operational = await readAs(as, target, '(objectClass=*)', '+');
    assert.equal(operational.entries.length, 1, `${requester}: the entry itself is readable`);
    const returned = valuesOf(operational.entries[0]!, 'pwdAccountLockedTime').length === 1
      && valuesOf(operational.entries[0]!, 'pwdFailureTime').length === FAILED_AT.length;
    const byName = (await readAs(as, target, '(objectClass=*)', 'pwdAccountLockedTime', 'pwdFailureTime')).entries[0]!;
    assert.equal(valuesOf(byName, 'pwdAccountLockedTime').length + valuesOf(byName, 'pwdFailureTime').length > 0, returned,
      `${requester}: asking by name returns what "+" returns`);
    for (const filter of ['(pwdAccountLockedTime=*)', `(pwdAccountLockedTime=${LOCKED_AT})`, `(pwdFailureTime<=${FAILED_AT[0]})`]) {
      const filtered = (await readAs(as, target, filter, '1.1')).entries.length === 1;
      assert.equal(filtered, returned, `${requester}: ${filter} sees what a read returns`);
    }
    const compare = await tool('ldapcompare', [target, `pwdAccountLockedTime:${LOCKED_AT}`], as);
    assert.equal(compare.code, returned ? 6 : 50, `${requester}: compare on pwdAccountLockedTime: ${compare.stdout}${compare.stderr}`);
    return returned;
  }

  /** What the requester gets for each right, as allowed (true) or refused (false), checked by reading back. */
  async function observe(row: Row): Promise<Record<Right, boolean>> {
    const as = credentialsOf(row);
    const target = userDn(row.target);

    const entry = await readAs(as, target, '(objectClass=*)', 'cn');
    const readEntry = entry.code === 0 && entry.entries.length === 1 && valuesOf(entry.entries[0]!, 'cn').length === 1;

    const password = await readAs(as, target, '(objectClass=*)', 'userPassword');
    const returned = password.entries.length === 1 && valuesOf(password.entries[0]!, 'userPassword').length > 0;
    const filtered = (await readAs(as, target, '(userPassword=*)', '1.1')).entries.length === 1;
    const stored = valuesOf((await readAs(admin, target, '(objectClass=*)', 'userPassword')).entries[0]!, 'userPassword')[0]!;
    const compared = (await tool('ldapcompare', [target, `userPassword:${stored}`], as)).code === 6;
    assert.equal(filtered, returned, `${row.requester}: a filter on userPassword sees what a read returns`);
    assert.equal(compared, returned, `${row.requester}: compare on userPassword agrees with a read`);

    const policyState = await readPolicyState(row.requester, as, target);

    const description = `written by ${row.requester}`;
    const write = await modifyAs(as, target, 'replace: description', `description: ${description}`);
    const written = valuesOf((await readAs(admin, target, '(objectClass=*)', 'description')).entries[0]!, 'description');
    assert.equal(write.code === 0, written.includes(description), `${row.requester}: the exit code tells whether it was written`);
    if (write.code !== 0) assert.equal(write.code, 50, write.stderr);

    const newPassword = `new-password-${row.target}`; // 8 characters at least: the password policy's default minimum
    const passwordWrite = await modifyAs(as, target, 'replace: userPassword', `userPassword: ${newPassword}`);
    const newWorks = (await tool('ldapwhoami', [], user(row.target, newPassword))).code === 0;
    const oldWorks = (await tool('ldapwhoami', [], user(row.target))).code === 0;
    assert.equal(passwordWrite.code === 0, newWorks && !oldWorks, `${row.requester}: the exit code tells whether the password changed`);
    if (passwordWrite.code !== 0) assert.equal(passwordWrite.code, 50, passwordWrite.stderr);

    return {
      'read entry': readEntry, 'read userPassword': returned, 'read policy state': policyState,
      'write entry': write.code === 0, 'write userPassword': passwordWrite.code === 0,
    };
  }

  for (const row of MATRIX) {
    test(`${row.requester}: ${Object.entries(row.allowed).map(([right, yes]) => `${right} ${yes ? 'yes' : 'no'}`).join(', ')}`, async () => {
      assert.deepEqual(await observe(row), row.allowed);
    });
  }

  test('a user cannot add, delete or rename entries, nor slip another attribute into its own password change (50)', async () => {
    const self = user(15);
    const add = await tool('ldapadd', [], self, `dn: uid=intruder,${PEOPLE}\nobjectClass: account\nuid: intruder\n`);
    assert.equal(add.code, 50, add.stderr);
    assert.equal((await tool('ldapdelete', [userDn(15)], self)).code, 50);
    assert.equal((await tool('ldapdelete', [userDn(16)], self)).code, 50);
    assert.equal((await tool('ldapmodrdn', [userDn(15), 'uid=renamed'], self)).code, 50);
    const mixed = await modifyAs(self, userDn(15), 'replace: userPassword', 'userPassword: sneaky', '-', 'replace: sn', 'sn: Sneaky');
    assert.equal(mixed.code, 50, mixed.stderr);
    assert.match(mixed.stderr, /only the admin may change entries/);
    assert.equal((await tool('ldapwhoami', [], user(15))).code, 0, 'the password did not change');
    assert.equal((await readAs(admin, `uid=intruder,${PEOPLE}`, '(objectClass=*)')).code, 32);
    assert.equal((await readAs(admin, userDn(16), '(objectClass=*)')).code, 0);
  });

  test('anonymous clients may only bind and read: add, delete, rename and modify answer 50', async () => {
    const add = await tool('ldapadd', [], undefined, `dn: uid=anon,${PEOPLE}\nobjectClass: account\nuid: anon\n`);
    assert.equal(add.code, 50, add.stderr);
    assert.match(add.stderr, /anonymous clients may only bind and read/);
    assert.equal((await tool('ldapdelete', [userDn(17)])).code, 50);
    assert.equal((await tool('ldapmodrdn', [userDn(17), 'uid=renamed'])).code, 50);
    assert.equal((await modifyAs(undefined, userDn(17), 'replace: userPassword', 'userPassword: x')).code, 50);
    assert.equal((await readAs(admin, userDn(17), '(objectClass=*)')).code, 0);
  });
});

describe('leveldap serve --no-anonymous-read: access control', { skip }, () => {
  let server: LeveldapServer;
  before(async () => { server = await startLeveldap({ users: 5, args: ['--no-anonymous-read'] }); });
  after(async () => { await server?.stop(); });

  test('anonymous may bind but not read (search, compare: 50) nor write; users still read', async () => {
    const search = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', userDn(1), '-s', 'base', 'cn']);
    assert.equal(search.code, 50, search.stderr);
    assert.equal((await ldapTool('ldapcompare', server.url, [userDn(1), 'uid:user.1'])).code, 50);
    assert.equal((await ldapTool('ldapmodify', server.url, [], undefined, `dn: ${userDn(1)}\nchangetype: modify\nreplace: sn\nsn: x\n`)).code, 50);
    assert.equal((await ldapTool('ldapwhoami', server.url, [], user(1))).code, 0);
    const asUser = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', userDn(2), '-s', 'base', 'cn'], user(1));
    assert.equal(asUser.code, 0, asUser.stderr);
    assert.equal(parseLdifOutput(asUser.stdout).length, 1);
  });
});
