/**
 * The server side of the request controls: which operation acts on which control
 * (src/server/controls.ts; a critical one elsewhere is refused), and the assertion control tested
 * on what the requester may see (assertion.ts), for every row of the access table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ASSERTION_OID, MANAGE_DSA_IT_OID, PAGED_RESULTS_OID, ProtocolError, type Request } from '../../../src/protocol/index.js';
import { requestControl, supportedControls, unsupportedCriticalControl } from '../../../src/server/controls.js';
import { requireAssertion } from '../../../src/server/assertion.js';
import type { Identity } from '../../../src/server/access.js';
import type { Filter } from '../../../src/protocol/filter.js';
import { DirectoryError } from '../../../src/store/index.js';
import { entry } from '../../helpers/store.js';

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

test('the assertion control on every operation RFC 4528 names, not on bind; a critical control elsewhere is refused, a non-critical one ignored', () => {
  const refused = (kind: Parameters<typeof request>[0], type: string) => unsupportedCriticalControl(request(kind, [{ type, critical: true }]) as never)?.type;
  assert.equal(refused('bind', ASSERTION_OID), ASSERTION_OID);
  for (const kind of ['add', 'delete', 'modify', 'modifyDn', 'compare', 'search'] as const) assert.equal(refused(kind, ASSERTION_OID), undefined, kind);
  assert.equal(refused('search', PAGED_RESULTS_OID), undefined);
  assert.equal(refused('modify', '1.2.3.4'), '1.2.3.4');
  assert.equal(requestControl(request('bind', [{ type: ASSERTION_OID }]), ASSERTION_OID), undefined, 'a non-critical assertion on bind is ignored');
  assert.equal(requestControl(request('delete', [{ type: ASSERTION_OID }]), ASSERTION_OID)?.type, ASSERTION_OID);
  assert.deepEqual(supportedControls().sort(), [ASSERTION_OID, PAGED_RESULTS_OID, MANAGE_DSA_IT_OID].sort());
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
