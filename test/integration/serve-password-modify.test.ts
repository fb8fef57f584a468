/**
 * Passwords written through `leveldap serve --default-scheme SSHA256`: the Password Modify
 * extended operation (RFC 3062) driven by ldappasswd and checked with ldapwhoami (new password
 * binds, old one fails), generated passwords, the old password check, who may change what; and
 * the hashing rules for userPassword written by ldapadd and ldapmodify (plain hashed with the
 * default scheme, a pre-hashed value from the admin only).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, type Credentials } from '../helpers/ldap-client.js';
import { bindRequest, exchange, extendedRequest, passwordModifyValue, PASSWORD_MODIFY } from '../helpers/ldap-requests.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const user = (n: number, password = 'password'): Credentials => ({ dn: userDn(n), password });
/** slappasswd's {SSHA} of "secret" (the README's example). */
const SSHA_OF_SECRET = '{SSHA}0H+zTv8o4MR4H43n03eCsvw1luG8LdB7';

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldappasswd', 'ldapmodify', 'ldapadd'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

describe('leveldap serve: Password Modify and passwords on write', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    server = await startLeveldap({ users: 30, args: ['--default-scheme', 'SSHA256'] });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => { await server?.stop(); });

  const tool = (name: string, args: readonly string[], as?: Credentials, input?: string) => ldapTool(name, server.url, args, as, input);
  const passwd = (as: Credentials | undefined, ...args: string[]) => tool('ldappasswd', args, as);
  const binds = async (as: Credentials) => (await tool('ldapwhoami', [], as)).code === 0;
  const modify = (as: Credentials, dn: string, ...lines: string[]) => tool('ldapmodify', [], as, `${[`dn: ${dn}`, 'changetype: modify', ...lines].join('\n')}\n`);

  async function stored(dn: string, attribute = 'userPassword'): Promise<string[]> {
    const result = await tool('ldapsearch', ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', attribute], admin);
    assert.equal(result.code, 0, result.stderr);
    return valuesOf(parseLdifOutput(result.stdout)[0]!, attribute);
  }

  /** The password ldappasswd printed ("New password: ..."). */
  function generated(output: string): string {
    const match = /New password: (\S+)/.exec(output);
    assert.ok(match, `ldappasswd printed a generated password: ${output}`);
    return match[1]!;
  }

  describe('ldappasswd', () => {
    test('a user changes its own password: the new one binds, the old one fails (49), hashed with --default-scheme', async () => {
      const result = await passwd(user(1), '-s', 'first-new');
      assert.equal(result.code, 0, result.stderr);
      assert.ok(await binds(user(1, 'first-new')));
      assert.equal((await tool('ldapwhoami', [], user(1))).code, 49);
      const values = await stored(userDn(1));
      assert.equal(values.length, 1);
      assert.match(values[0]!, /^\{SSHA256\}/);
      assert.deepEqual(await stored(userDn(1), 'modifiersName'), [userDn(1)]);
    });

    test('the old password is checked when given: wrong, 53 and nothing changes; right, changed', async () => {
      const wrong = await passwd(user(2), '-a', 'not-it', '-s', 'second-new');
      assert.equal(wrong.code, 1);
      assert.match(wrong.stdout + wrong.stderr, /unwilling to perform \(53\)/i);
      assert.match(wrong.stdout + wrong.stderr, /unwilling to verify old password/);
      assert.ok(await binds(user(2)));
      const right = await passwd(user(2), '-a', 'password', '-s', 'second-new');
      assert.equal(right.code, 0, right.stderr);
      assert.ok(await binds(user(2, 'second-new')));
    });

    test('without a new password one is generated, returned, and binds', async () => {
      const result = await passwd(user(3));
      assert.equal(result.code, 0, result.stderr);
      const password = generated(result.stdout);
      assert.ok(password.length >= 12, password);
      assert.ok(await binds(user(3, password)));
      assert.ok(!(await binds(user(3))));
    });

    test('the admin sets or generates anyone\'s password', async () => {
      assert.equal((await passwd(admin, '-s', 'set-by-admin', userDn(4))).code, 0);
      assert.ok(await binds(user(4, 'set-by-admin')));
      const result = await passwd(admin, userDn(5));
      assert.equal(result.code, 0, result.stderr);
      assert.ok(await binds(user(5, generated(result.stdout))));
      assert.deepEqual(await stored(userDn(5), 'modifiersName'), [server.adminDn]);
    });

    test('refusals: anonymous 8 (as OpenLDAP), another user\'s password 50, the admin itself or a missing entry 32, a bad DN 34', async () => {
      const anonymous = await passwd(undefined, '-s', 'x', userDn(6));
      assert.equal(anonymous.code, 1);
      assert.match(anonymous.stdout + anonymous.stderr, /authentication required \(8\)/);
      assert.match(anonymous.stdout + anonymous.stderr, /only authenticated users may change passwords/);
      const other = await passwd(user(7), '-s', 'x', userDn(6));
      assert.match(other.stdout + other.stderr, /Insufficient access \(50\)/);
      assert.ok(await binds(user(6)), 'user.6 keeps its password');
      const itself = await passwd(admin, '-s', 'x');
      assert.match(itself.stdout + itself.stderr, /No such object \(32\)/);
      const ghost = await passwd(admin, '-s', 'x', `uid=ghost,${PEOPLE}`);
      assert.match(ghost.stdout + ghost.stderr, /No such object \(32\)/);
      assert.match(ghost.stdout + ghost.stderr, new RegExp(`Matched DN: ${PEOPLE}`, 'i'));
      const bad = await passwd(admin, '-s', 'x', 'not a dn');
      assert.match(bad.stdout + bad.stderr, /Invalid DN syntax \(34\)/);
    });

    test('a pre-hashed new password: refused from a user (19), kept from the admin', async () => {
      const fromUser = await passwd(user(8), '-s', SSHA_OF_SECRET);
      assert.match(fromUser.stdout + fromUser.stderr, /Constraint violation \(19\)/);
      assert.match(fromUser.stdout + fromUser.stderr, /accepted from the admin only/);
      assert.ok(await binds(user(8)));
      assert.equal((await passwd(admin, '-s', SSHA_OF_SECRET, userDn(8))).code, 0);
      assert.deepEqual(await stored(userDn(8)), [SSHA_OF_SECRET]);
      assert.ok(await binds(user(8, 'secret')));
    });
  });

  describe('userPassword written by ldapadd and ldapmodify', () => {
    test('a plain value is hashed with --default-scheme; a user\'s own plain change is hashed too', async () => {
      const dn = `uid=dora,${PEOPLE}`;
      const add = await tool('ldapadd', [], admin, `dn: ${dn}\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: dora\nuserPassword: explorer\n`);
      assert.equal(add.code, 0, add.stderr);
      assert.match((await stored(dn))[0]!, /^\{SSHA256\}/);
      assert.ok(await binds({ dn, password: 'explorer' }));
      const change = await modify(user(9), userDn(9), 'replace: userPassword', 'userPassword: changed-by-self');
      assert.equal(change.code, 0, change.stderr);
      assert.match((await stored(userDn(9)))[0]!, /^\{SSHA256\}/);
      assert.ok(await binds(user(9, 'changed-by-self')));
    });

    test('a value in a known {SCHEME}: kept byte for byte from the admin, refused from a user (19)', async () => {
      const dn = `uid=prehashed,${PEOPLE}`;
      const add = await tool('ldapadd', [], admin, `dn: ${dn}\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: prehashed\nuserPassword: ${SSHA_OF_SECRET}\n`);
      assert.equal(add.code, 0, add.stderr);
      assert.deepEqual(await stored(dn), [SSHA_OF_SECRET]);
      assert.ok(await binds({ dn, password: 'secret' }));
      const fromUser = await modify(user(10), userDn(10), 'replace: userPassword', `userPassword: ${SSHA_OF_SECRET}`);
      assert.equal(fromUser.code, 19, fromUser.stderr);
      assert.match(fromUser.stderr, /accepted from the admin only; send the password in plain text/);
      assert.ok(await binds(user(10)));
    });

    test('refused from anyone (19): an unknown {SCHEME}, an empty value, a hash above --max-iterations; from a user, two values', async () => {
      assert.match((await modify(admin, userDn(11), 'replace: userPassword', 'userPassword: {NOSUCH}abc')).stderr, /unknown password scheme \{NOSUCH\}/);
      assert.equal((await modify(admin, userDn(11), 'replace: userPassword', 'userPassword:')).code, 19);
      const costly = '{PBKDF2-SHA256}90000000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      const tooCostly = await modify(admin, userDn(11), 'replace: userPassword', `userPassword: ${costly}`);
      assert.equal(tooCostly.code, 19, tooCostly.stderr);
      assert.match(tooCostly.stderr, /max-iterations/);
      const two = await modify(user(11), userDn(11), 'replace: userPassword', 'userPassword: one', 'userPassword: two');
      assert.equal(two.code, 19, two.stderr);
      assert.ok(await binds(user(11)), 'user.11 keeps its password');
    });
  });

  describe('userPassword in a DN', () => {
    test('refused as a naming attribute (53), by an add or a modify DN: it would be stored in clear and readable by anyone (review 2026-12-08)', async () => {
      const add = await tool('ldapadd', [], admin, `dn: cn=svc+userPassword=ClearInRdn1,ou=People,dc=example,dc=com\nobjectClass: person\ncn: svc\nsn: svc\n`);
      assert.equal(add.code, 53, add.stdout + add.stderr);
      assert.match(add.stderr, /userPassword may not be a naming attribute/);
      const rename = await tool('ldapmodrdn', [userDn(5), 'uid=user.5+userPassword=cleartext99'], admin);
      assert.equal(rename.code, 53, rename.stdout + rename.stderr);
      const found = await tool('ldapsearch', ['-LLL', '-b', 'ou=People,dc=example,dc=com', '(userPassword=*)', '1.1'], admin);
      assert.doesNotMatch(found.stdout, /userPassword=/i, 'no entry is named by a password');
    });
  });

  describe('the extended operation itself', () => {
    test('the root DSE announces it', async () => {
      const result = await tool('ldapsearch', ['-LLL', '-b', '', '-s', 'base', '(objectClass=*)', 'supportedExtension']);
      assert.ok(valuesOf(parseLdifOutput(result.stdout)[0]!, 'supportedExtension').includes(PASSWORD_MODIFY));
    });

    test('a malformed request value is a protocolError (2), a missing one generates a password; the connection goes on', async () => {
      const connection = await RawConnection.open(server.port);
      try {
        assert.equal((await exchange(connection, 1, bindRequest(1, userDn(12), 'password'))).code, 0);
        assert.equal((await exchange(connection, 2, extendedRequest(2, PASSWORD_MODIFY, Buffer.from([0x30, 0x03, 0x85, 0x01, 0x41])))).code, 2);
        assert.equal((await exchange(connection, 3, extendedRequest(3, PASSWORD_MODIFY, Buffer.from('junk')))).code, 2);
        const noValue = await exchange(connection, 4, extendedRequest(4, PASSWORD_MODIFY));
        assert.equal(noValue.code, 0, noValue.message);
        // The test client decodes the value as UTF-8: SEQUENCE, [0] (0x80, not UTF-8), length, then the password.
        const match = /^0.\uFFFD.([A-Za-z0-9_-]{12,})$/su.exec(noValue.responseValue ?? '');
        assert.ok(match, `a PasswdModifyResponseValue with genPasswd: ${JSON.stringify(noValue.responseValue)}`);
        const password = match[1]!;
        assert.ok(await binds(user(12, password)));
        const byDnPrefix = await exchange(connection, 5, extendedRequest(5, PASSWORD_MODIFY,
          passwordModifyValue({ userIdentity: `dn:${userDn(12)}`, oldPassword: password, newPassword: 'prefixed' })));
        assert.equal(byDnPrefix.code, 0, byDnPrefix.message);
        assert.ok(await binds(user(12, 'prefixed')));
      } finally {
        connection.destroy();
      }
    });
  });
});
