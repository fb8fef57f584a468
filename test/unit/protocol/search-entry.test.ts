/** A client reading SearchResultEntry messages (src/protocol/search-entry.ts), against the server's own encoder. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSearchEntry, encodeSearchEntry, ProtocolError } from '../../../src/protocol/index.js';

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
