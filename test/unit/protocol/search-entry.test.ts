/** A client reading SearchResultEntry messages (src/protocol/search-entry.ts), against the server's own encoder. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSearchEntry, encodeSearchEntry, encodeSlicedSearchEntry, ProtocolError } from '../../../src/protocol/index.js';
import { encodeEntry, sliceRecord } from '../../../src/store/codec.js';

test('the DN and every attribute with its values, in order, as the server encoded them', () => {
  const frame = encodeSearchEntry(7, 'cn=Bind,cn=Operations,cn=Monitor', [
    { name: 'objectClass', values: [Buffer.from('monitorOperation')] },
    { name: 'monitorOpInitiated', values: [Buffer.from('12')] },
    { name: 'description', values: [Buffer.from('é'), Buffer.from('two')] },
    { name: 'empty', values: [] },
  ]);
  const entry = decodeSearchEntry(frame);
  assert.equal(entry.dn, 'cn=Bind,cn=Operations,cn=Monitor');
  assert.deepEqual([...entry.attributes], [
    ['objectClass', ['monitorOperation']], ['monitorOpInitiated', ['12']], ['description', ['é', 'two']], ['empty', []],
  ]);
});

test('a message that is not a SearchResultEntry is refused', () => {
  const done = Buffer.from([0x30, 0x0c, 0x02, 0x01, 0x07, 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00]);
  assert.throws(() => decodeSearchEntry(done), ProtocolError);
});

test('an entry encoded from its record\'s slices is byte for byte the entry encoded from its attributes', () => {
  const entry = {
    dn: 'cn=Zoë 日本\\, Ltd,ou=People,o=x',
    attributes: [
      { name: 'objectClass', values: ['top', 'person'].map((v) => Buffer.from(v)) },
      { name: 'cn;lang-ja', values: [Buffer.from('日本'), Buffer.from('')] },
      { name: 'userPassword', values: [Buffer.from('{SSHA}secret')] },
      { name: 'description', values: [Buffer.alloc(200, 0x61), Buffer.alloc(70_000, 0x62)] },
      { name: 'seeAlso', values: [] },
      ...Array.from({ length: 100 }, (_, i) => ({ name: `x-attribute-${i}`, values: [Buffer.from(String(i))] })),
    ],
  };
  const record = encodeEntry(entry);
  const computed = [{ name: 'hasSubordinates', values: [Buffer.from('FALSE')] }, { name: 'entryDN', values: [Buffer.from(entry.dn)] }];
  const empty = (attributes: readonly { name: string }[]) => attributes.map(({ name }) => ({ name, values: [] }));
  for (const keep of [() => true, () => false, (name: string) => name !== 'userPassword']) {
    const kept = entry.attributes.filter((attribute) => keep(attribute.name));
    for (const extra of [[], computed]) {
      for (const [messageId, typesOnly] of [[1, false], [300, true], [2 ** 31 - 1, false]] as const) {
        const expected = encodeSearchEntry(messageId, entry.dn, typesOnly ? [...empty(kept), ...empty(extra)] : [...kept, ...extra]);
        const sliced = encodeSlicedSearchEntry(messageId, sliceRecord(record, keep), typesOnly ? empty(extra) : extra, typesOnly);
        assert.deepEqual(sliced, expected, `${keep.toString()}, ${extra.length} computed, message ${messageId}, typesOnly ${typesOnly}`);
      }
    }
  }
});
