/**
 * The access table's read side (src/server/access.ts): which attributes each requester may see
 * of an entry it may read. userPassword and the password policy state (every type the schema
 * marks policyState) are kept from anonymous clients and other users, however they are named.
 * The whole matrix runs through the server in serve-access-control.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS, MONITOR_ACCESS, MONITOR_ACCESS_CHOICES, monitorRule, readable, readRightFor, requireMonitorAccess, type Identity } from '../../../src/server/access.js';
import { DirectoryError } from '../../../src/store/index.js';
import { attributeType } from '../../../src/store/index.js';

const ENTRY = 'uid=user.1,ou=people,dc=example,dc=com';
const IDENTITIES: Readonly<Record<string, Identity>> = {
  anonymous: { isAdmin: false, normalizedDn: '' },
  self: { isAdmin: false, normalizedDn: ENTRY },
  otherUser: { isAdmin: false, normalizedDn: 'uid=user.2,ou=people,dc=example,dc=com' },
  admin: { isAdmin: true, normalizedDn: 'cn=directory manager' },
};

const POLICY_STATE = ['pwdAccountLockedTime', 'pwdFailureTime', 'pwdChangedTime'];
const NAMES_OF_STATE = [
  ...POLICY_STATE, 'PWDACCOUNTLOCKEDTIME', 'pwdfailuretime', '1.3.6.1.4.1.42.2.27.8.1.17', 'OID.1.3.6.1.4.1.42.2.27.8.1.19',
  '1.3.6.1.4.1.42.2.27.8.1.16', 'pwdAccountLockedTime;x-any',
];

test('the schema marks exactly the pwd* types as policy state', () => {
  for (const name of POLICY_STATE) assert.equal(attributeType(name).policyState, true, name);
  for (const name of ['userPassword', 'createTimestamp', 'entryUUID', 'cn', 'pwdUnknown']) assert.equal(attributeType(name).policyState, undefined, name);
});

test('readRightFor: userPassword and the policy state, by any name; nothing for other attributes', () => {
  for (const name of ['userPassword', 'USERPASSWORD', '2.5.4.35', 'userPassword;x-a']) assert.equal(readRightFor(name), 'readPassword', name);
  for (const name of NAMES_OF_STATE) assert.equal(readRightFor(name), 'readPolicyState', name);
  for (const name of ['cn', 'createTimestamp', 'entryUUID', 'modifiersName']) assert.equal(readRightFor(name), undefined, name);
});

test('the read policy state column: admin yes, self yes, another user no, anonymous no', () => {
  assert.deepEqual(Object.fromEntries(Object.entries(ACCESS).map(([row, rights]) => [row, rights.readPolicyState])),
    { anonymous: false, self: true, otherUser: false, admin: true });
  assert.deepEqual(Object.fromEntries(Object.entries(ACCESS).map(([row, rights]) => [row, rights.writeEntry])),
    { anonymous: false, self: false, otherUser: false, admin: true }, 'writing the state stays the admin\'s');
});

test('readable: what each requester sees of an entry', () => {
  const sees = (who: string, name: string) => readable(IDENTITIES[who]!, ENTRY).attribute(name);
  for (const who of ['admin', 'self']) {
    assert.equal(readable(IDENTITIES[who]!, ENTRY).all, true, who);
    for (const name of [...NAMES_OF_STATE, 'userPassword', 'cn']) assert.ok(sees(who, name), `${who}: ${name}`);
  }
  for (const who of ['anonymous', 'otherUser']) {
    assert.equal(readable(IDENTITIES[who]!, ENTRY).all, false, who);
    for (const name of [...NAMES_OF_STATE, 'userPassword']) assert.ok(!sees(who, name), `${who}: ${name}`);
    for (const name of ['cn', 'createTimestamp', 'entryUUID']) assert.ok(sees(who, name), `${who}: ${name}`);
  }
});

test('cn=Monitor: who reads it under each --monitor-access, and whose bound DNs they see', () => {
  const anonymous: Identity = { isAdmin: false, normalizedDn: '' };
  const someone: Identity = { isAdmin: false, normalizedDn: ENTRY };
  const admin: Identity = { isAdmin: true, normalizedDn: 'cn=directory manager' };
  const readers = (access: (typeof MONITOR_ACCESS_CHOICES)[number]) => [anonymous, someone, admin].map((who) => monitorRule(who, access).read);
  assert.deepEqual(readers('admin'), [false, false, true]);
  assert.deepEqual(readers('users'), [false, true, true]);
  assert.deepEqual(readers('anonymous'), [true, true, true]);
  for (const access of MONITOR_ACCESS_CHOICES) {
    assert.equal(MONITOR_ACCESS[access].admin.boundDns, 'all', 'the admin sees every bound DN');
    assert.equal(MONITOR_ACCESS[access].user.boundDns, 'own', 'a user never sees another user\'s');
    assert.equal(MONITOR_ACCESS[access].anonymous.boundDns, 'own');
  }
  assert.throws(() => requireMonitorAccess(someone, 'admin'), (error: unknown) => error instanceof DirectoryError && error.code === 50 && /--monitor-access admin/.test(error.message));
  assert.equal(requireMonitorAccess(someone, 'users').boundDns, 'own');
});
