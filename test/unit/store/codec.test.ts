import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntry, decodeValues, encodeEntry, KEEP_NONE, recordDn, sliceRecord } from '../../../src/store/codec.js';
import { StoreError, values } from '../../../src/store/index.js';

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

test('decodeValues reads one attribute type from a record without decoding the rest', () => {
  const entry = {
    dn: 'uid=a,dc=x',
    attributes: [
      { name: 'cn', values: [Buffer.from('A')] },
      { name: 'userPassword', values: [Buffer.from('{SSHA}one'), Buffer.from('{SSHA}two')] },
      { name: 'mail', values: [Buffer.alloc(300, 0x61)] },
      { name: 'USERPASSWORD;x-opt', values: [Buffer.from('three')] },
      { name: 'userPasswordX', values: [Buffer.from('not a userPassword')] },
      { name: '2.5.4.35', values: [Buffer.from('by OID')] },
      { name: 'OID.2.5.4.35', values: [Buffer.from('by OID.')] },
      { name: 'userPasswor', values: [Buffer.from('shorter')] },
    ],
  };
  const record = encodeEntry(entry);
  assert.deepEqual(decodeValues(record, 'userPassword').map(String), ['{SSHA}one', '{SSHA}two', 'three', 'by OID', 'by OID.']);
  assert.deepEqual(decodeValues(record, 'USERPASSWORD').map(String), decodeValues(record, '2.5.4.35').map(String), 'asked by any name');
  assert.deepEqual(decodeValues(record, 'userPasswordX').map(String), ['not a userPassword'], 'an unknown type: its own name only');
  for (const description of ['userPassword', 'cn', 'mail', 'userPasswordX', 'sn']) {
    assert.deepEqual(decodeValues(record, description), values(decodeEntry(record), description), `same as decodeEntry + values: ${description}`);
  }
  assert.deepEqual(decodeValues(record, 'commonName').map(String), ['A'], 'aliases match');
  assert.deepEqual(decodeValues(record, 'sn'), []);
  for (let cut = 1; cut < record.byteLength; cut += 7) {
    assert.throws(() => decodeValues(record.subarray(0, cut), 'mail'), StoreError, `cut at ${cut}`);
  }
});

test('records of different shapes decoded in turn keep their own names (names are remembered by position)', () => {
  const user = { dn: 'uid=a,o=x', attributes: [{ name: 'uid', values: [Buffer.from('a')] }, { name: 'cn', values: [Buffer.from('A')] }] };
  const group = { dn: 'cn=g,o=x', attributes: [{ name: 'cn', values: [Buffer.from('g')] }, { name: 'member', values: [Buffer.from('uid=a,o=x')] }] };
  const long = { dn: 'o=x', attributes: [{ name: `x-${'a'.repeat(80)}`, values: [Buffer.from('1')] }, { name: 'uiD', values: [] }] };
  const names = (entry: { attributes: readonly { name: string }[] }) => entry.attributes.map((attribute) => attribute.name);
  for (let round = 0; round < 3; round += 1) {
    for (const entry of [user, group, long, user]) assert.deepEqual(names(decodeEntry(encodeEntry(entry))), names(entry));
  }
});

test('a value is a view of the record, not a copy, and a record inside a larger buffer decodes the same', () => {
  const record = encodeEntry({ dn: 'o=x', attributes: [{ name: 'description', values: [Buffer.from('first'), Buffer.from('second')] }] });
  const larger = Buffer.concat([Buffer.from('padding'), record, Buffer.from('after')]);
  const inside = larger.subarray(7, 7 + record.length);
  const decoded = decodeEntry(inside);
  assert.deepEqual(decoded.attributes[0]!.values.map(String), ['first', 'second']);
  assert.equal(decoded.attributes[0]!.values[1]!.buffer, larger.buffer);
  assert.deepEqual(decodeValues(inside, 'description').map(String), ['first', 'second']);
  for (let cut = 0; cut < record.length; cut += 1) assert.throws(() => decodeValues(inside.subarray(0, cut), 'description'), StoreError);
});

const RECORDED = {
  dn: 'cn=Zoë 日本\\, Ltd,ou=People,o=x',
  attributes: [
    { name: 'objectClass', values: ['top', 'person'].map((v) => Buffer.from(v)) },
    { name: 'cn;lang-ja', values: [Buffer.from('日本'), Buffer.from('')] },
    { name: 'userPassword', values: [Buffer.from('{SSHA}secret')] },
    { name: 'jpegPhoto', values: [Buffer.alloc(70_000, 0xab)] },
    { name: 'description', values: [] },
    { name: 'createTimestamp', values: [Buffer.from('20261203000000Z')] },
  ],
};

test('decodeEntry with a name test decodes only those attributes, in order, and the DN', () => {
  const record = encodeEntry(RECORDED);
  const kept = decodeEntry(record, (name) => name === 'objectClass' || name === 'jpegPhoto' || name === 'description');
  assert.equal(kept.dn, RECORDED.dn);
  assert.deepEqual(kept.attributes, [RECORDED.attributes[0], RECORDED.attributes[3], RECORDED.attributes[4]]);
  assert.deepEqual(decodeEntry(record, () => false).attributes, []);
  assert.deepEqual(decodeEntry(record, KEEP_NONE), { dn: RECORDED.dn, attributes: [] }, 'KEEP_NONE: the DN alone, the attributes not walked');
  assert.deepEqual(decodeEntry(record, () => true), decodeEntry(record));
  assert.equal(recordDn(record), RECORDED.dn);
  for (let cut = 0; cut < record.byteLength; cut += 97) {
    assert.throws(() => decodeEntry(record.subarray(0, cut), () => false), StoreError, `skipping, cut at ${cut}`);
  }
});

test('sliceRecord points at the DN and the kept attributes\' names and values in the record', () => {
  const record = encodeEntry(RECORDED);
  const keep = (name: string) => name !== 'userPassword' && name !== 'createTimestamp';
  const { bytes, dnStart, dnLength, parts, partsLength } = sliceRecord(record, keep);
  assert.equal(bytes, record);
  assert.equal(bytes.toString('utf8', dnStart, dnStart + dnLength), RECORDED.dn);
  const read: { name: string; values: Buffer[] }[] = [];
  for (let i = 0; i < partsLength; i += 3 + 2 * parts[i + 2]!) {
    const values = Array.from({ length: parts[i + 2]! }, (_, j) => bytes.subarray(parts[i + 3 + 2 * j]!, parts[i + 3 + 2 * j]! + parts[i + 4 + 2 * j]!));
    read.push({ name: bytes.toString('utf8', parts[i]!, parts[i]! + parts[i + 1]!), values });
  }
  assert.deepEqual(read, RECORDED.attributes.filter((attribute) => keep(attribute.name)));
  assert.equal(sliceRecord(record, () => false).partsLength, 0);
  const dnOnly = sliceRecord(record, KEEP_NONE);
  assert.deepEqual([dnOnly.partsLength, dnOnly.bytes.toString('utf8', dnOnly.dnStart, dnOnly.dnStart + dnOnly.dnLength)], [0, RECORDED.dn], 'KEEP_NONE: the DN alone');
  const many = { dn: 'cn=many,o=x', attributes: [{ name: 'description', values: Array.from({ length: 5000 }, (_, i) => Buffer.from(String(i))) }] };
  const sliced = sliceRecord(encodeEntry(many), () => true);
  assert.equal(sliced.partsLength, 3 + 2 * 5000, 'the scratch grows for a record of many values');
  assert.equal(sliced.bytes.toString('utf8', sliced.parts[3 + 2 * 4999]!, sliced.parts[3 + 2 * 4999]! + sliced.parts[4 + 2 * 4999]!), '4999');
  for (let cut = 0; cut < record.byteLength; cut += 97) {
    assert.throws(() => sliceRecord(record.subarray(0, cut), keep), StoreError, `cut at ${cut}`);
  }
});
