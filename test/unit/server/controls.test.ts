/**
 * The server side of the request controls: which operation acts on which control
 * (src/server/controls.ts; a critical one elsewhere is refused), the assertion control tested on
 * what the requester may see (assertion.ts), and the pre-read and post-read copies holding only
 * what a search by the requester returns (read-entry.ts). Every requester the access table lets
 * write an entry may read all of it, so the server tests cannot show a copy without
 * userPassword; these drive the same code with the other rows of the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ASSERTION_OID, MANAGE_DSA_IT_OID, PAGED_RESULTS_OID, PASSWORD_POLICY_OID, POST_READ_OID, PRE_READ_OID, ProtocolError, type Request,
} from '../../../src/protocol/index.js';
import { requestControl, supportedControls, unsupportedCriticalControl } from '../../../src/server/controls.js';
import { requireAssertion } from '../../../src/server/assertion.js';
import { readEntryControl } from '../../../src/server/read-entry.js';
import { parseSelection } from '../../../src/server/attributes.js';
import type { Identity } from '../../../src/server/access.js';
import type { Filter } from '../../../src/protocol/filter.js';
import { DirectoryError } from '../../../src/store/index.js';
import { entry } from '../../helpers/store.js';
import { readEntryValue } from '../../helpers/ldap-requests.js';

const DN = 'uid=user.1,ou=People,dc=example,dc=com';
const ENTRY = entry(DN, {
  objectClass: ['top', 'inetOrgPerson'], uid: 'user.1', cn: 'User 1', sn: 'One',
  userPassword: '{SSHA}c2VjcmV0c2VjcmV0', pwdAccountLockedTime: '20260101000000.000Z', entryUUID: '0b9e8a2c-2f4e-4f8e-9d5e-1c1c1c1c1c1c',
});
const IDENTITIES: Readonly<Record<string, Identity>> = {
  anonymous: { isAdmin: false, normalizedDn: '' },
  self: { isAdmin: false, normalizedDn: DN.toLowerCase() },
  otherUser: { isAdmin: false, normalizedDn: 'uid=user.2,ou=people,dc=example,dc=com' },
  admin: { isAdmin: true, normalizedDn: 'cn=directory manager' },
};

const request = (kind: 'bind' | 'search' | 'add' | 'delete' | 'modify' | 'modifyDn' | 'compare', controls: { type: string; critical?: boolean; value?: Buffer }[]): Request =>
  ({ kind, messageId: 1, controls: controls.map((control) => ({ critical: false, ...control })) }) as unknown as Request;

test('each operation acts on the controls its RFC names; a critical control elsewhere is refused, a non-critical one ignored', () => {
  const refused = (kind: Parameters<typeof request>[0], type: string) => unsupportedCriticalControl(request(kind, [{ type, critical: true }]) as never)?.type;
  for (const type of [ASSERTION_OID, PRE_READ_OID, POST_READ_OID]) assert.equal(refused('bind', type), type, `bind: ${type}`);
  assert.equal(refused('add', PRE_READ_OID), PRE_READ_OID, 'add has no entry before it');
  assert.equal(refused('delete', POST_READ_OID), POST_READ_OID, 'delete leaves no entry after it');
  assert.equal(refused('modify', PASSWORD_POLICY_OID), PASSWORD_POLICY_OID, 'the password policy control on bind only');
  assert.equal(refused('search', PRE_READ_OID), PRE_READ_OID);
  for (const [kind, type] of [['bind', PASSWORD_POLICY_OID], ['add', ASSERTION_OID], ['add', POST_READ_OID], ['delete', PRE_READ_OID], ['modify', PRE_READ_OID],
    ['modify', POST_READ_OID], ['modifyDn', ASSERTION_OID], ['compare', ASSERTION_OID], ['search', ASSERTION_OID], ['search', PAGED_RESULTS_OID]] as const) {
    assert.equal(refused(kind, type), undefined, `${kind}: ${type}`);
  }
  assert.equal(requestControl(request('delete', [{ type: POST_READ_OID }]), POST_READ_OID), undefined, 'a non-critical post-read on delete is ignored');
  assert.equal(requestControl(request('delete', [{ type: PRE_READ_OID, value: Buffer.from('3000', 'hex') }]), PRE_READ_OID)?.type, PRE_READ_OID);
  assert.deepEqual(supportedControls().sort(), [ASSERTION_OID, PAGED_RESULTS_OID, PASSWORD_POLICY_OID, POST_READ_OID, PRE_READ_OID, MANAGE_DSA_IT_OID].sort());
});

test('a control given twice is a protocolError', () => {
  assert.throws(() => requestControl(request('modify', [{ type: ASSERTION_OID }, { type: ASSERTION_OID }]), ASSERTION_OID), ProtocolError);
});

const present = (attribute: string): Filter => ({ type: 'present', attribute });
const not = (filter: Filter): Filter => ({ type: 'not', filter });
const equality = (attribute: string, value: string): Filter => ({ type: 'equality', attribute, value: Buffer.from(value) });

async function holds(assertion: Filter, identity: Identity, hasSubordinates = false): Promise<boolean> {
  try {
    await requireAssertion(assertion, ENTRY, identity, () => hasSubordinates);
    return true;
  } catch (error) {
    assert.ok(error instanceof DirectoryError && error.code === 122, String(error));
    return false;
  }
}

test('the assertion: TRUE proceeds, FALSE and Undefined answer assertionFailed (122)', async () => {
  assert.equal(await holds(equality('sn', 'one'), IDENTITIES.admin!), true, 'by the attribute\'s matching rule');
  assert.equal(await holds(equality('sn', 'two'), IDENTITIES.admin!), false);
  assert.equal(await holds(equality('noSuchAttribute;', 'x'), IDENTITIES.admin!), false, 'Undefined');
  assert.equal(await holds(equality('hasSubordinates', 'TRUE'), IDENTITIES.admin!, true), true, 'hasSubordinates asked of the store');
  assert.equal(await holds(equality('hasSubordinates', 'TRUE'), IDENTITIES.admin!, false), false);
});

test('the assertion sees what the requester may read: no probing userPassword or the lock', async () => {
  for (const name of ['admin', 'self']) {
    assert.equal(await holds(present('userPassword'), IDENTITIES[name]!), true, name);
    assert.equal(await holds(present('pwdAccountLockedTime'), IDENTITIES[name]!), true, name);
  }
  for (const name of ['otherUser', 'anonymous']) {
    assert.equal(await holds(present('userPassword'), IDENTITIES[name]!), false, name);
    assert.equal(await holds(present('2.5.4.35'), IDENTITIES[name]!), false, `${name}, by OID`);
    assert.equal(await holds(present('pwdAccountLockedTime'), IDENTITIES[name]!), false, name);
    assert.equal(await holds(not(present('pwdAccountLockedTime')), IDENTITIES[name]!), true, `${name}: as if the entry had no lock`);
    assert.equal(await holds(present('cn'), IDENTITIES[name]!), true, name);
  }
});

test('the read controls: the attributes a search by the requester returns', () => {
  const read = (identity: Identity, ...names: string[]) => {
    const control = readEntryControl(POST_READ_OID, ENTRY, parseSelection(names), identity, false);
    assert.equal(control.type, POST_READ_OID);
    assert.equal(control.critical, false);
    return readEntryValue(control.value!);
  };
  const all = read(IDENTITIES.admin!, '*', '+');
  assert.equal(all.dn, DN);
  assert.deepEqual(Object.keys(all.attributes).sort(),
    ['cn', 'entryUUID', 'hasSubordinates', 'objectClass', 'pwdAccountLockedTime', 'sn', 'uid', 'userPassword', 'entryDN', 'subschemaSubentry'].sort());
  assert.deepEqual(all.attributes.hasSubordinates, ['FALSE']);
  assert.deepEqual(Object.keys(read(IDENTITIES.admin!).attributes).sort(), ['cn', 'objectClass', 'sn', 'uid', 'userPassword'], 'no selection: the user attributes');
  assert.deepEqual(Object.keys(read(IDENTITIES.admin!, '1.1').attributes), []);
  assert.deepEqual(read(IDENTITIES.self!, 'userPassword', 'pwdAccountLockedTime').attributes,
    { userPassword: ['{SSHA}c2VjcmV0c2VjcmV0'], pwdAccountLockedTime: ['20260101000000.000Z'] });
  for (const name of ['otherUser', 'anonymous']) {
    const copy = read(IDENTITIES[name]!, '*', '+', 'userPassword', '2.5.4.35', 'pwdAccountLockedTime');
    assert.equal(copy.attributes.userPassword, undefined, name);
    assert.equal(copy.attributes.pwdAccountLockedTime, undefined, name);
    assert.deepEqual(copy.attributes.cn, ['User 1'], name);
  }
});
