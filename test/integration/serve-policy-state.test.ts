/**
 * The password policy state (pwdAccountLockedTime, pwdFailureTime, pwdChangedTime) through
 * `leveldap serve` with lockout on and the OpenLDAP clients. Who may see it: anonymous clients
 * and other users get none of it however they ask (`+`, names in any case, OIDs, options,
 * typesOnly), no filter on it matches for them, and compare answers 50 whether or not the entry
 * holds it; the entry itself and the admin see it. What may be written to it: GeneralizedTime
 * values only (invalidAttributeSyntax, 21, for anything else), OpenLDAP's 000001010000Z included.
 * The access matrix (serve-access-control.test.ts) has the self/other/anonymous/admin column.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, type Credentials } from '../helpers/ldap-client.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const userDn = (uid: string | number) => `uid=${typeof uid === 'number' ? `user.${uid}` : uid},${PEOPLE}`;
const user = (uid: string | number, password = 'password'): Credentials => ({ dn: userDn(uid), password });

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldapcompare', 'ldapmodify', 'ldapadd'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

const CHANGED_AT = '20230405060708Z';
/** Imported: uid=changed has a pwdChangedTime; uid=legacy a lock that is not a time (written before values were checked). */
const LDIF = `dn: ${userDn('changed')}
objectClass: inetOrgPerson
uid: changed
cn: Changed
sn: Changed
userPassword: password
pwdChangedTime: ${CHANGED_AT}

dn: ${userDn('legacy')}
objectClass: inetOrgPerson
uid: legacy
cn: Legacy
sn: Legacy
userPassword: password
pwdAccountLockedTime: garbage
`;

/** Every way to name the state attributes in a search's attribute list (by name, case, OID, options, '+'). */
const SELECTIONS: readonly (readonly string[])[] = [
  ['+'],
  ['*', '+'],
  ['pwdAccountLockedTime', 'pwdFailureTime', 'pwdChangedTime'],
  ['PWDACCOUNTLOCKEDTIME', 'pwdfailuretime'],
  ['1.3.6.1.4.1.42.2.27.8.1.17', '1.3.6.1.4.1.42.2.27.8.1.19'],
  ['OID.1.3.6.1.4.1.42.2.27.8.1.17'],
  ['pwdAccountLockedTime;x-any'],
];

describe('leveldap serve: who may read the password policy state (--max-failures 3 --lockout-duration 0)', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;
  /** user.1's lock, as the lockout wrote it after three wrong binds. */
  let lockedAt: string;

  const tool = (name: string, args: readonly string[], as?: Credentials, input?: string) => ldapTool(name, server.url, args, as, input);
  const modifyAs = (as: Credentials | undefined, dn: string, ...lines: string[]) =>
    tool('ldapmodify', [], as, `${[`dn: ${dn}`, 'changetype: modify', ...lines].join('\n')}\n`);

  async function search(as: Credentials | undefined, base: string, filter: string, attributes: readonly string[], options: readonly string[] = []) {
    const result = await tool('ldapsearch', ['-LLL', ...options, '-b', base, filter, ...attributes], as);
    assert.equal(result.code, 0, `${filter}: ${result.stderr}`);
    return { stdout: result.stdout, entries: parseLdifOutput(result.stdout) };
  }
  const dnsOf = async (as: Credentials | undefined, filter: string) =>
    (await search(as, PEOPLE, filter, ['dn'])).entries.map((entry) => entry.dn.toLowerCase()).sort();

  before(async () => {
    // uid=legacy's lock is not a time: it was stored before values were checked, so the import does not check
    server = await startLeveldap({ users: 8, args: ['--max-failures', '3', '--lockout-duration', '0'], ldif: LDIF, schemaCheck: false });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
    for (let i = 0; i < 3; i++) assert.equal((await tool('ldapwhoami', [], user(1, 'wrong'))).code, 49);
    const locked = (await search(admin, userDn(1), '(objectClass=*)', ['pwdAccountLockedTime', 'pwdFailureTime'])).entries[0]!;
    lockedAt = valuesOf(locked, 'pwdAccountLockedTime')[0]!;
    assert.match(lockedAt, /^\d{14}\.\d{3}Z$/, 'the lockout wrote a lock');
    assert.equal(valuesOf(locked, 'pwdFailureTime').length, 3);
    const byHand = await modifyAs(admin, userDn(2), 'add: pwdAccountLockedTime', 'pwdAccountLockedTime: 000001010000Z');
    assert.equal(byHand.code, 0, byHand.stderr);
  });
  after(async () => { await server?.stop(); });

  test('(pwdAccountLockedTime=*) over ou=People: the admin finds the locked accounts; anonymous and another user find none', async () => {
    const locked = [userDn(1), userDn(2), userDn('legacy')].map((dn) => dn.toLowerCase()).sort();
    assert.deepEqual(await dnsOf(admin, '(pwdAccountLockedTime=*)'), locked);
    assert.deepEqual(await dnsOf(undefined, '(pwdAccountLockedTime=*)'), []);
    assert.deepEqual(await dnsOf(user(3), '(pwdAccountLockedTime=*)'), []);
    assert.deepEqual(await dnsOf(undefined, '(pwdChangedTime=*)'), []);
    assert.deepEqual(await dnsOf(user(3), '(pwdChangedTime=*)'), []);
  });

  test('no filter on the state matches for anonymous or another user, whatever its form; the admin\'s same filters do', async () => {
    const filters = [
      '(pwdAccountLockedTime=*)', '(PwdAccountLockedTime=*)', '(1.3.6.1.4.1.42.2.27.8.1.17=*)',
      `(pwdAccountLockedTime=${lockedAt})`, '(pwdAccountLockedTime>=20000101000000Z)', '(pwdFailureTime<=99991231235959Z)',
      '(pwdFailureTime=*)', '(pwdAccountLockedTime:generalizedTimeOrderingMatch:=99991231235959Z)',
      `(pwdAccountLockedTime:2.5.13.27:=${lockedAt})`, `(:generalizedTimeMatch:=${lockedAt})`,
      '(&(uid=user.1)(pwdFailureTime=*))', '(|(uid=nobody)(pwdAccountLockedTime=*))', '(!(!(pwdAccountLockedTime=*)))',
    ];
    for (const filter of filters) {
      assert.ok((await dnsOf(admin, filter)).includes(userDn(1).toLowerCase()), `admin: ${filter} finds user.1`);
      assert.deepEqual(await dnsOf(undefined, filter), [], `anonymous: ${filter}`);
      assert.deepEqual(await dnsOf(user(3), filter), [], `another user: ${filter}`);
    }
    // The negation tells nothing either: it matches every entry, locked or not.
    const everyone = await dnsOf(user(3), '(objectClass=*)');
    assert.ok(everyone.includes(userDn(1).toLowerCase()));
    assert.deepEqual(await dnsOf(user(3), '(!(pwdAccountLockedTime=*))'), everyone);
    assert.deepEqual(await dnsOf(undefined, '(!(pwdAccountLockedTime=*))'), everyone);
  });

  test('anonymous and another user get none of the state however they ask; the admin gets it every way', async () => {
    for (const attributes of SELECTIONS) {
      for (const options of [[], ['-A']]) {
        const label = `${attributes.join(' ')} ${options.join(' ')}`;
        const asAdmin = await search(admin, userDn(1), '(objectClass=*)', attributes, options);
        assert.match(asAdmin.stdout, /^pwdAccountLockedTime:/m, `admin: ${label}`);
        for (const [who, as] of [['anonymous', undefined], ['another user', user(3)]] as const) {
          const seen = await search(as, userDn(1), '(objectClass=*)', attributes, options);
          assert.equal(seen.entries.length, 1, `${who}: ${label}: the entry is returned`);
          assert.doesNotMatch(seen.stdout, /^pwd/im, `${who}: ${label}`);
        }
      }
    }
    const operational = (await search(user(3), userDn(1), '(objectClass=*)', ['+'])).entries[0]!;
    assert.equal(valuesOf(operational, 'entryUUID').length, 1, 'the other operational attributes are still returned');
    const changed = await search(undefined, userDn('changed'), '(objectClass=*)', ['+']);
    assert.doesNotMatch(changed.stdout, /pwdChangedTime/i);
  });

  test('compare on the state answers 50 for anonymous and another user, whether or not the entry holds it', async () => {
    const assertions: readonly (readonly [string, string])[] = [
      [userDn(1), `pwdAccountLockedTime:${lockedAt}`],
      [userDn(1), `1.3.6.1.4.1.42.2.27.8.1.17:${lockedAt}`],
      [userDn(1), 'pwdFailureTime:20000101000000Z'],
      [userDn(4), 'pwdAccountLockedTime:20000101000000Z'],
      [userDn('changed'), `pwdChangedTime:${CHANGED_AT}`],
    ];
    for (const [dn, assertion] of assertions) {
      for (const as of [undefined, user(3)]) {
        const result = await tool('ldapcompare', [dn, assertion], as);
        assert.equal(result.code, 50, `${as?.dn ?? 'anonymous'}: ${dn} ${assertion}: ${result.stdout}${result.stderr}`);
        assert.match(result.stdout + result.stderr, /may not be compared/);
      }
    }
    assert.equal((await tool('ldapcompare', [userDn(1), `pwdAccountLockedTime:${lockedAt}`], admin)).code, 6);
    assert.equal((await tool('ldapcompare', [userDn(1), 'pwdAccountLockedTime:20000101000000Z'], admin)).code, 5);
    assert.equal((await tool('ldapcompare', [userDn(4), 'pwdAccountLockedTime:20000101000000Z'], admin)).code, 16);
    assert.equal((await tool('ldapcompare', [userDn('changed'), `pwdChangedTime:${CHANGED_AT}`], user('changed'))).code, 6);
  });

  test('the entry itself sees its own state (by "+", by filter) and not another\'s', async () => {
    const self = user('changed');
    const own = (await search(self, userDn('changed'), '(objectClass=*)', ['+'])).entries[0]!;
    assert.deepEqual(valuesOf(own, 'pwdChangedTime'), [CHANGED_AT]);
    assert.deepEqual(await dnsOf(self, '(|(pwdChangedTime=*)(pwdAccountLockedTime=*))'), [userDn('changed').toLowerCase()]);
    assert.doesNotMatch((await search(self, userDn(1), '(objectClass=*)', ['+'])).stdout, /^pwd/im);
  });

  test('only the admin writes the state: anonymous, another user and the entry itself get 50', async () => {
    for (const [as, dn] of [[undefined, userDn(5)], [user(3), userDn(5)], [user(5), userDn(5)]] as const) {
      const result = await modifyAs(as, dn, 'replace: pwdFailureTime', 'pwdFailureTime: 20240101000000Z');
      assert.equal(result.code, 50, result.stderr);
    }
    assert.equal((await modifyAs(user(1, 'password'), userDn(1), 'delete: pwdAccountLockedTime')).code, 49, 'the locked account cannot bind to unlock itself');
  });
});

describe('leveldap serve: values written to pwdAccountLockedTime and pwdFailureTime (--max-failures 3 --lockout-duration 0)', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  const tool = (name: string, args: readonly string[], as?: Credentials, input?: string) => ldapTool(name, server.url, args, as, input);
  const modify = (dn: string, ...lines: string[]) => tool('ldapmodify', [], admin, `${[`dn: ${dn}`, 'changetype: modify', ...lines].join('\n')}\n`);
  const binds = async (uid: number | string) => (await tool('ldapwhoami', [], user(uid))).code;

  before(async () => {
    server = await startLeveldap({ users: 6, args: ['--max-failures', '3', '--lockout-duration', '0'], ldif: LDIF, schemaCheck: false });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => { await server?.stop(); });

  test('a value that is not a GeneralizedTime answers invalidAttributeSyntax (21) and is not stored: the account stays open', async () => {
    const invalid = ['garbage', '0', '2024-01-02T03:04:05Z', '20240102030405', '20241302030405Z', '20240230000000Z', '20240102250000Z',
      '20240102030405z', '20240102030405+2400'];
    for (const value of invalid) {
      for (const attribute of ['pwdAccountLockedTime', 'pwdFailureTime']) {
        for (const op of ['replace', 'add']) {
          const result = await modify(userDn(1), `${op}: ${attribute}`, `${attribute}: ${value}`);
          assert.equal(result.code, 21, `${op} ${attribute}: ${JSON.stringify(value)}: ${result.stderr}`);
          assert.match(result.stderr, new RegExp(`${attribute}: value #0 invalid per syntax`));
        }
      }
    }
    const empty = await modify(userDn(1), 'replace: pwdAccountLockedTime', 'pwdAccountLockedTime:');
    assert.equal(empty.code, 21, empty.stderr);
    const second = await modify(userDn(1), 'replace: pwdFailureTime', 'pwdFailureTime: 20240102030405Z', 'pwdFailureTime: later');
    assert.equal(second.code, 21, second.stderr);
    assert.match(second.stderr, /value #1 invalid per syntax/);
    const read = await tool('ldapsearch', ['-LLL', '-b', userDn(1), '-s', 'base', '(objectClass=*)', 'pwdAccountLockedTime', 'pwdFailureTime'], admin);
    assert.doesNotMatch(read.stdout, /pwd/i, 'nothing was stored');
    assert.equal(await binds(1), 0, 'the account is not locked');
  });

  test('an add with an invalid time answers 21 and adds nothing', async () => {
    const entry = `dn: uid=new,${PEOPLE}\nobjectClass: inetOrgPerson\nuid: new\ncn: New\nsn: New\npwdFailureTime: yesterday\n`;
    const result = await tool('ldapadd', [], admin, entry);
    assert.equal(result.code, 21, result.stderr);
    const read = await tool('ldapsearch', ['-LLL', '-b', `uid=new,${PEOPLE}`, '-s', 'base', 'dn'], admin);
    assert.equal(read.code, 32);
  });

  test('valid times are stored (0) and lock the account; deleting the lock unlocks it', async () => {
    for (const value of ['20240102030405Z', '20240102030405.123Z', '202401020304Z', '2024010203+0200', '20240102030405,5-0130']) {
      const result = await modify(userDn(2), 'replace: pwdAccountLockedTime', `pwdAccountLockedTime: ${value}`);
      assert.equal(result.code, 0, `${value}: ${result.stderr}`);
      assert.equal(await binds(2), 49, `${value}: locked`);
    }
    const failures = await modify(userDn(2), 'replace: pwdFailureTime', 'pwdFailureTime: 20240102030401Z', 'pwdFailureTime: 20240102030402.5Z');
    assert.equal(failures.code, 0, failures.stderr);
    assert.equal((await modify(userDn(2), 'delete: pwdAccountLockedTime')).code, 0);
    assert.equal(await binds(2), 0);
  });

  test('OpenLDAP\'s 000001010000Z is valid (0): it locks until the admin removes it', async () => {
    const lock = await modify(userDn(3), 'replace: pwdAccountLockedTime', 'pwdAccountLockedTime: 000001010000Z');
    assert.equal(lock.code, 0, lock.stderr);
    assert.equal(await binds(3), 49);
    assert.equal((await modify(userDn(3), 'delete: pwdAccountLockedTime', 'pwdAccountLockedTime: 000001010000Z')).code, 0);
    assert.equal(await binds(3), 0);
  });

  test('a lock stored before values were checked (not a time) can still be deleted by its value', async () => {
    assert.equal(await binds('legacy'), 49, 'a lock that is not a time locks');
    const unlock = await modify(userDn('legacy'), 'delete: pwdAccountLockedTime', 'pwdAccountLockedTime: garbage');
    assert.equal(unlock.code, 0, unlock.stderr);
    assert.equal(await binds('legacy'), 0);
  });

  test('the lockout\'s own records pass the check: three wrong binds still lock', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await tool('ldapwhoami', [], user(4, 'wrong'))).code, 49);
    assert.equal(await binds(4), 49);
    const read = await tool('ldapsearch', ['-LLL', '-b', userDn(4), '-s', 'base', '(objectClass=*)', 'pwdAccountLockedTime'], admin);
    assert.match(read.stdout, /^pwdAccountLockedTime: \d{14}\.\d{3}Z$/m);
  });
});
