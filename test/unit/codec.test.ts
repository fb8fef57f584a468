import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntry, encodeEntry } from '../../src/store/codec.js';
import { StoreError } from '../../src/store/index.js';

test('an entry record round-trips DN and values byte for byte', () => {
  const entry = {
    dn: 'cn=Zoë 日本\\, Ltd,o=x',
    attributes: [
      { name: 'cn;lang-ja', values: [Buffer.from('日本'), Buffer.from('')] },
      { name: 'jpegPhoto', values: [Buffer.from([0, 255, 10, 13, 0x80])] },
      { name: 'objectClass', values: ['top', 'person'].map((v) => Buffer.from(v)) },
    ],
  };
  const decoded = decodeEntry(encodeEntry(entry));
  assert.equal(decoded.dn, entry.dn);
  assert.deepEqual(decoded.attributes.map((a) => [a.name, a.values.map((v) => v.toString('hex'))]),
    entry.attributes.map((a) => [a.name, a.values.map((v) => v.toString('hex'))]));
});

test('a truncated or foreign record is a StoreError, not a crash', () => {
  const record = encodeEntry({ dn: 'o=x', attributes: [{ name: 'o', values: [Buffer.from('x')] }] });
  for (let cut = 0; cut < record.byteLength; cut += 1) {
    assert.throws(() => decodeEntry(record.subarray(0, cut)), StoreError);
  }
  assert.throws(() => decodeEntry(Buffer.from([9, 0, 0])), /format 9 is not supported/);
});
