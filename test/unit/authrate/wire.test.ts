import { test } from 'node:test';
import assert from 'node:assert/strict';
import filters from '@ldapjs/filter';
import {
  SEARCH_DONE, SEARCH_ENTRY, encodeAdd, encodeModify, encodeSearch, encodeSimpleBind, encodeStartTls, readCode, readEntryDn, readMessage, readResult,
} from '../../../src/authrate/wire.js';
import { START_TLS_OID, decodeRequest, decodeRequestFully, encodeBindResponse, encodeSearchDone, encodeSearchEntry } from '../../../src/protocol/index.js';

// The load clients' hand-written encodings, read back by the server's own decoder, and the
// server's responses read by the clients' minimal readers.

test('simple BindRequests with short and long lengths decode with the general decoder', () => {
  const cases: [number, string, string][] = [[0, '', ''], [127, 'x'.repeat(127), 'y'], [128, 'x'.repeat(200), 'p'.repeat(300)], [70000, 'é'.repeat(40000), 'z'.repeat(70000)]];
  for (const [messageId, name, password] of cases) {
    const request = decodeRequestFully(encodeSimpleBind(messageId, name, Buffer.from(password)));
    assert.ok(request.kind === 'bind' && request.authentication.method === 'simple');
    assert.deepEqual([request.messageId, request.name, request.authentication.password.toString()], [messageId, name, password]);
  }
});

test('a simple BindRequest decodes as the server sees it', () => {
  const request = decodeRequest(encodeSimpleBind(300, 'uid=é,dc=x', Buffer.from('pw')));
  assert.deepEqual(request, {
    messageId: 300, controls: [], kind: 'bind', version: 3, name: 'uid=é,dc=x', authentication: { method: 'simple', password: Buffer.from('pw') },
  });
});

test('a SearchRequest carries base, scope, deref, the filter and attributes', () => {
  const filter = filters.parseString('(&(uid=user.7)(objectClass=person))').toBer().buffer;
  const request = decodeRequest(encodeSearch(5, { base: 'ou=People,dc=example,dc=com', scope: 1, deref: 3, filter, attributes: ['cn', 'mail'] }));
  assert.equal(request.kind, 'search');
  if (request.kind !== 'search') return;
  assert.deepEqual([request.messageId, request.base, request.scope, request.derefAliases, request.sizeLimit, request.typesOnly], [5, 'ou=People,dc=example,dc=com', 'one', 3, 0, false]);
  assert.deepEqual(request.attributes, ['cn', 'mail']);
  assert.equal(request.filter.type, 'and');
});

test('a ModifyRequest (modrate) replaces each attribute with its values, in order', () => {
  const request = decodeRequest(encodeModify(9, 'uid=user.1,ou=People,dc=example,dc=com', [
    { attribute: 'description', values: ['é'.repeat(100)] }, { attribute: 'title', values: ['a', 'b'] },
  ]));
  assert.deepEqual(request, {
    messageId: 9, controls: [], kind: 'modify', dn: 'uid=user.1,ou=People,dc=example,dc=com', changes: [
      { op: 'replace', attribute: 'description', values: [Buffer.from('é'.repeat(100))] },
      { op: 'replace', attribute: 'title', values: [Buffer.from('a'), Buffer.from('b')] },
    ],
  });
});

test('an AddRequest (the benchmarks that load a server through LDAP) carries the DN and every attribute with its values, bytes kept', () => {
  const binary = Buffer.from([0, 0xff, 0x80]);
  const request = decodeRequest(encodeAdd(12, 'uid=user.1,ou=People,dc=example,dc=com', [
    { name: 'objectClass', values: [Buffer.from('top'), Buffer.from('person')] }, { name: 'cn', values: [Buffer.from('é'.repeat(100))] },
    { name: 'jpegPhoto', values: [binary] },
  ]));
  assert.deepEqual(request, {
    messageId: 12, controls: [], kind: 'add', dn: 'uid=user.1,ou=People,dc=example,dc=com', attributes: [
      { name: 'objectClass', values: [Buffer.from('top'), Buffer.from('person')] }, { name: 'cn', values: [Buffer.from('é'.repeat(100))] },
      { name: 'jpegPhoto', values: [binary] },
    ],
  });
});

test('the StartTLS request is an extended request with its OID and no value', () => {
  assert.deepEqual(decodeRequest(encodeStartTls(1)), { messageId: 1, controls: [], kind: 'extended', oid: START_TLS_OID });
});

test('responses: message id, operation tag, result code and an entry DN (long lengths too)', () => {
  assert.deepEqual(readResult(encodeBindResponse(70000, { code: 49, message: 'x'.repeat(300) })), { messageId: 70000, code: 49 });
  const dn = `uid=${'a'.repeat(200)},dc=example,dc=com`;
  const entry = encodeSearchEntry(9, dn, [{ name: 'cn', values: [Buffer.alloc(500, 0x61)] }]);
  const read = readMessage(entry);
  assert.deepEqual([read.messageId, read.tag], [9, SEARCH_ENTRY]);
  assert.equal(readEntryDn(entry, read.content), dn);
  const done = encodeSearchDone(9, { code: 32, matchedDn: 'dc=example,dc=com' });
  const message = readMessage(done);
  assert.deepEqual([message.tag, readCode(done, message.content)], [SEARCH_DONE, 32]);
});
