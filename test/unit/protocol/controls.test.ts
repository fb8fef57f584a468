/**
 * The values of the assertion (RFC 4528), pre-read and post-read (RFC 4527) and password policy
 * controls, checked against ldapjs's independent encoders and decoders (@ldapjs/filter,
 * @ldapjs/controls, @ldapjs/messages): requests decoded, responses encoded, malformed values
 * refused with ProtocolError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  checkPasswordPolicyRequest,
  decodeAssertion,
  decodeAttributeSelection,
  encodeBindResponse,
  encodeEntryValue,
  encodePasswordPolicyResponse,
  encodeSearchEntry,
  PASSWORD_POLICY_OID,
  ProtocolError,
  ResultCode,
} from '../../../src/protocol/index.js';

const require = createRequire(import.meta.url);
const messages: any = require('@ldapjs/messages');
const { parseString }: any = require('@ldapjs/filter');
const { PasswordPolicyControl }: any = require('@ldapjs/controls');
const { BerReader, BerWriter }: any = require('@ldapjs/asn1');

const b = (text: string): Buffer => Buffer.from(text);
const filterBer = (text: string): Buffer => Buffer.from(parseString(text).toBer().buffer);

function selection(...names: string[]): Buffer {
  const writer = new BerWriter();
  writer.startSequence(0x30);
  for (const name of names) writer.writeString(name);
  writer.endSequence();
  return Buffer.from(writer.buffer);
}

test('assertion control value: one Filter, as ldapjs writes it', () => {
  assert.deepEqual(decodeAssertion(filterBer('(sn=Jensen)')), { type: 'equality', attribute: 'sn', value: b('Jensen') });
  assert.deepEqual(decodeAssertion(filterBer('(&(objectClass=person)(!(description=*)))')), {
    type: 'and',
    filters: [
      { type: 'equality', attribute: 'objectClass', value: b('person') },
      { type: 'not', filter: { type: 'present', attribute: 'description' } },
    ],
  });
});

test('assertion control value: absent, empty, trailing bytes or not a filter is a ProtocolError', () => {
  assert.throws(() => decodeAssertion(undefined), { name: 'ProtocolError', message: /assertion control value is absent/ });
  for (const garbage of [Buffer.alloc(0), Buffer.concat([filterBer('(cn=a)'), Buffer.from([0])]), Buffer.from('3000', 'hex'), Buffer.from('a305040163', 'hex')]) {
    assert.throws(() => decodeAssertion(garbage), ProtocolError, garbage.toString('hex'));
  }
});

test('pre-read and post-read control value: AttributeSelection, a SEQUENCE OF LDAPString', () => {
  assert.deepEqual(decodeAttributeSelection(selection('cn', '+', 'entryUUID;binary'), 'postread'), ['cn', '+', 'entryUUID;binary']);
  assert.deepEqual(decodeAttributeSelection(selection(), 'preread'), []);
  assert.throws(() => decodeAttributeSelection(undefined, 'preread'), { name: 'ProtocolError', message: /preread control value is absent/ });
  for (const garbage of ['', '3103040163', '30030201ff', '3003040163ff', '300204ff']) {
    assert.throws(() => decodeAttributeSelection(Buffer.from(garbage, 'hex'), 'postread'), ProtocolError, garbage);
  }
});

test('encodeEntryValue: the SearchResultEntry of encodeSearchEntry, without the LDAPMessage around it', () => {
  const attributes = [
    { name: 'objectClass', values: [b('top'), b('person')] },
    { name: 'cn', values: [b('Zoë 日本')] },
    { name: 'jpegPhoto', values: [Buffer.alloc(300, 0xab)] },
  ];
  const value = encodeEntryValue('cn=Zoe,dc=example,dc=com', attributes);
  const frame = encodeSearchEntry(7, 'cn=Zoe,dc=example,dc=com', attributes);
  assert.ok(frame.subarray(frame.length - value.length).equals(value));
  assert.equal(value[0], 0x64, 'APPLICATION 4');
  // Wrapped in an LDAPMessage by hand, ldapjs reads it as a SearchResultEntry.
  const writer = new BerWriter();
  writer.startSequence(0x30);
  writer.writeInt(7);
  writer.appendBuffer(value);
  writer.endSequence();
  const parsed = messages.LdapMessage.parse(new BerReader(Buffer.from(writer.buffer)));
  assert.equal(parsed.type, 'SearchResultEntry');
  assert.equal(parsed.objectName.toString(), 'cn=Zoe,dc=example,dc=com');
  assert.deepEqual(parsed.attributes[1].buffers, [b('Zoë 日本')]);
  assert.ok(encodeEntryValue('', []).equals(Buffer.from('640404003000', 'hex')));
});

test('password policy request: no value; a value is a ProtocolError (as OpenLDAP)', () => {
  checkPasswordPolicyRequest(undefined);
  assert.throws(() => checkPasswordPolicyRequest(Buffer.alloc(0)), { name: 'ProtocolError', message: 'passwordPolicyRequest control value not absent' });
});

test('password policy response: empty, accountLocked, each warning, as @ldapjs/controls reads and writes them', () => {
  const read = (value: Buffer) => new PasswordPolicyControl({ value }).value;
  const theirs = (value: object) => {
    const writer = new BerWriter();
    new PasswordPolicyControl({ value }).toBer(writer);
    return Buffer.from(writer.buffer);
  };
  const cases = [
    [{}, {}],
    [{ error: 'accountLocked' }, { error: 1 }],
    [{ error: 'passwordInHistory' }, { error: 8 }],
    [{ warning: { timeBeforeExpiration: 86_400 } }, { timeBeforeExpiration: 86_400 }],
    [{ warning: { graceAuthNsRemaining: 2 }, error: 'passwordExpired' }, { graceAuthNsRemaining: 2, error: 0 }],
  ] as const;
  for (const [response, expected] of cases) {
    const ours = encodePasswordPolicyResponse(response);
    assert.deepEqual(read(ours), expected, JSON.stringify(response));
    // ldapjs writes no value at all for an empty response; otherwise its value is ours, byte for byte.
    if (Object.keys(expected).length > 0) assert.ok(theirs(expected).includes(ours), `${JSON.stringify(response)}: ${ours.toString('hex')}`);
  }
  assert.equal(encodePasswordPolicyResponse({}).toString('hex'), '3000');
  assert.equal(encodePasswordPolicyResponse({ error: 'accountLocked' }).toString('hex'), '3003810101', 'error [1] ENUMERATED, implicit');
  assert.equal(encodePasswordPolicyResponse({ warning: { timeBeforeExpiration: 5 } }).toString('hex'), '3005a003800105', 'warning [0] { timeBeforeExpiration [0] }');
});

test('encodeBindResponse carries the response control, as ldapjs reads it', () => {
  const control = { type: PASSWORD_POLICY_OID, critical: false, value: encodePasswordPolicyResponse({ error: 'accountLocked' }) };
  const parsed = messages.LdapMessage.parse(new BerReader(encodeBindResponse(4, { code: ResultCode.invalidCredentials }, undefined, [control])));
  assert.equal(parsed.type, 'BindResponse');
  assert.equal(parsed.status, 49);
  assert.equal(parsed.controls.length, 1);
  assert.equal(parsed.controls[0].type, PASSWORD_POLICY_OID);
  assert.deepEqual(parsed.controls[0].value, { error: 1 });
});

test('assertionFailed is 122', () => {
  assert.equal(ResultCode.assertionFailed, 122);
});
