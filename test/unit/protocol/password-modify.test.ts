/** The Password Modify values (RFC 3062), against @ldapjs/asn1 as an independent encoder and decoder. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { decodePasswordModify, encodePasswordModifyResponse, ProtocolError } from '../../../src/protocol/index.js';
import { passwordModifyValue } from '../../helpers/ldap-requests.js';

const require = createRequire(import.meta.url);
const { BerReader }: any = require('@ldapjs/asn1');

test('every field, some fields, none, or no value at all', () => {
  assert.deepEqual(decodePasswordModify(passwordModifyValue({ userIdentity: 'uid=a,dc=x', oldPassword: 'old', newPassword: 'new' })), {
    userIdentity: 'uid=a,dc=x', oldPassword: Buffer.from('old'), newPassword: Buffer.from('new'),
  });
  assert.deepEqual(decodePasswordModify(passwordModifyValue({ newPassword: 'only' })), { newPassword: Buffer.from('only') });
  assert.deepEqual(decodePasswordModify(passwordModifyValue({ oldPassword: '' })), { oldPassword: Buffer.alloc(0) });
  assert.deepEqual(decodePasswordModify(passwordModifyValue({})), {});
  assert.deepEqual(decodePasswordModify(undefined), {});
});

test('malformed values are ProtocolErrors: fields out of order, unknown tags, trailing bytes, not a sequence, truncated', () => {
  const malformed = [
    Buffer.from([0x30, 0x06, 0x82, 0x01, 0x41, 0x80, 0x01, 0x42]),
    Buffer.from([0x30, 0x03, 0x85, 0x01, 0x41]),
    Buffer.from([0x30, 0x00, 0x00]),
    Buffer.from('junk'),
    Buffer.from([0x30, 0x05, 0x80, 0x09, 0x41]),
    Buffer.alloc(0),
    Buffer.from([0x30, 0x03, 0x80, 0x01, 0xff]),
  ];
  for (const value of malformed) {
    assert.throws(() => decodePasswordModify(value), ProtocolError, value.toString('hex'));
  }
});

test('the response carries genPasswd [0] as @ldapjs/asn1 reads it', () => {
  for (const generated of ['Xy7-pass', 'p'.repeat(300)]) {
    const reader = new BerReader(encodePasswordModifyResponse(Buffer.from(generated)));
    assert.equal(reader.readSequence(0x30), 0x30);
    assert.equal(reader.readString(0x80), generated);
    assert.equal(reader.remain, 0);
  }
});
