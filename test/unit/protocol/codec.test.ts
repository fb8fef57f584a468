import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  decodePagedResults,
  decodeRequest,
  decodeRequestFully,
  decodeSimpleBind,
  encodeBindResponse,
  encodeExtendedResponse,
  encodeNoticeOfDisconnection,
  encodePagedResults,
  encodeResult,
  encodeSearchDone,
  encodeSearchEntry,
  MANAGE_DSA_IT_OID,
  MAX_FILTER_DEPTH,
  NOTICE_OF_DISCONNECTION_OID,
  PAGED_RESULTS_OID,
  ProtocolError,
  ResponseOp,
  type Request,
} from '../../../src/protocol/index.js';
import type { Filter } from '../../../src/protocol/filter.js';

// The independent encoder and decoder: ldapjs's own message classes (typed loosely, test only).
const require = createRequire(import.meta.url);
const messages: any = require('@ldapjs/messages');
const { parseString }: any = require('@ldapjs/filter');
const { Control, PagedResultsControl }: any = require('@ldapjs/controls');
const Attribute: any = require('@ldapjs/attribute');
const Change: any = require('@ldapjs/change');
const { BerReader, BerWriter }: any = require('@ldapjs/asn1');

const b = (text: string): Buffer => Buffer.from(text);
const toBer = (message: any): Buffer => message.toBer().buffer;

/** ldapjs does not read serverSaslCreds or responseValue: `whole` false skips the end check. */
function parseResponse(frame: Buffer, whole = true): any {
  const reader = new BerReader(frame);
  const message = messages.LdapMessage.parse(reader);
  if (whole) assert.equal(reader.offset, frame.length, 'the response is read to its end');
  return message;
}

/** Builds BER by hand with @ldapjs/asn1's writer, for what @ldapjs/messages cannot express. */
function ber(write: (writer: any) => void): Buffer {
  const writer = new BerWriter();
  write(writer);
  return Buffer.from(writer.buffer);
}

function message(messageId: number, writeOp: (writer: any) => void, writeControls?: (writer: any) => void): Buffer {
  return ber((writer) => {
    writer.startSequence(0x30);
    writer.writeInt(messageId);
    writeOp(writer);
    writeControls?.(writer);
    writer.endSequence();
  });
}

function assertProtocolError(frame: Buffer, pattern: RegExp, messageId?: number): void {
  assert.throws(() => decodeRequest(frame), (error: unknown) => {
    assert.ok(error instanceof ProtocolError, `a ProtocolError, got ${String(error)}`);
    assert.match(error.message, pattern);
    assert.equal(error.messageId, messageId);
    return true;
  });
}

/** The same message with an empty controls sequence (a0 00) after the protocolOp. */
function withEmptyControls(frame: Buffer): Buffer {
  assert.ok(frame[1]! < 0x7e, 'a short-form message');
  const grown = Buffer.concat([frame, Buffer.from([0xa0, 0x00])]);
  grown[1]! += 2;
  return grown;
}

/** Replaces the first occurrence of `from` (hex) after `after` in `frame` with `to` (hex). */
function patch(frame: Buffer, from: string, to: string, after = 0): Buffer {
  const at = frame.indexOf(Buffer.from(from, 'hex'), after);
  assert.ok(at >= 0, `${from} in ${frame.toString('hex')}`);
  return Buffer.concat([frame.subarray(0, at), Buffer.from(to, 'hex'), frame.subarray(at + from.length / 2)]);
}

// ---------------------------------------------------------------- requests

test('simple BindRequest', () => {
  const frame = toBer(new messages.BindRequest({ messageId: 1, name: 'cn=admin,dc=example,dc=com', credentials: 'secret' }));
  assert.deepEqual(decodeRequest(frame), {
    messageId: 1, controls: [], kind: 'bind', version: 3, name: 'cn=admin,dc=example,dc=com',
    authentication: { method: 'simple', password: b('secret') },
  });
});

test('anonymous bind, Unicode name, large message ID', () => {
  const anonymous = toBer(new messages.BindRequest({ messageId: 0x7fffffff, name: '', credentials: '' }));
  assert.deepEqual(decodeRequest(anonymous), {
    messageId: 0x7fffffff, controls: [], kind: 'bind', version: 3, name: '', authentication: { method: 'simple', password: Buffer.alloc(0) },
  });
  const unicode = toBer(new messages.BindRequest({ messageId: 300, name: 'cn=Zoë 日本,o=x', credentials: 'pässwörd' }));
  const request = decodeRequest(unicode);
  assert.equal(request.kind === 'bind' && request.name, 'cn=Zoë 日本,o=x');
  assert.deepEqual(request.kind === 'bind' && request.authentication, { method: 'simple', password: b('pässwörd') });
});

test('SASL BindRequest, with and without credentials', () => {
  const sasl = (credentials?: Buffer) => message(4, (w) => {
    w.startSequence(0x60);
    w.writeInt(3);
    w.writeString('');
    w.startSequence(0xa3);
    w.writeString('EXTERNAL');
    if (credentials) w.writeBuffer(credentials, 0x04);
    w.endSequence();
    w.endSequence();
  });
  assert.deepEqual(decodeRequest(sasl()), {
    messageId: 4, controls: [], kind: 'bind', version: 3, name: '', authentication: { method: 'sasl', mechanism: 'EXTERNAL' },
  });
  assert.deepEqual(decodeRequest(sasl(Buffer.from([0, 1, 2]))).kind === 'bind' && decodeRequest(sasl(Buffer.from([0, 1, 2]))), {
    messageId: 4, controls: [], kind: 'bind', version: 3, name: '',
    authentication: { method: 'sasl', mechanism: 'EXTERNAL', credentials: Buffer.from([0, 1, 2]) },
  });
  assert.equal(decodeSimpleBind(sasl()), undefined);
});

test('controls: type, criticality (default false), optional value', () => {
  const frame = toBer(new messages.BindRequest({
    messageId: 2, name: 'cn=a', credentials: 'p',
    controls: [
      new Control({ type: MANAGE_DSA_IT_OID, criticality: true }),
      new Control({ type: '1.2.3.4', value: b('v') }),
    ],
  }));
  assert.deepEqual(decodeRequest(frame).controls, [
    { type: MANAGE_DSA_IT_OID, critical: true },
    { type: '1.2.3.4', critical: false, value: b('v') },
  ]);
  assert.equal(decodeSimpleBind(frame), undefined, 'the fast path leaves binds with controls to decodeRequest');
});

test('decodeSimpleBind (the fast path decodeRequest takes for simple binds) agrees with the general decoder', () => {
  const frames = [
    toBer(new messages.BindRequest({ messageId: 1, name: 'uid=user.1,ou=People,dc=example,dc=com', credentials: 'password' })),
    toBer(new messages.BindRequest({ messageId: 0, name: '', credentials: '' })),
    toBer(new messages.BindRequest({ messageId: 128, name: 'cn=Zoë', credentials: 'x'.repeat(300) })),
    toBer(new messages.BindRequest({ messageId: 0x12345678, version: 2, name: 'x'.repeat(70_000), credentials: 'y' })),
    // an empty controls sequence after the bind: no controls, still the fast path
    withEmptyControls(toBer(new messages.BindRequest({ messageId: 9, name: 'a', credentials: 'b' }))),
  ];
  for (const frame of frames) {
    const request = decodeRequestFully(frame);
    assert.ok(request.kind === 'bind' && request.authentication.method === 'simple');
    assert.deepEqual(decodeSimpleBind(frame), {
      messageId: request.messageId, version: request.version, name: request.name, password: request.authentication.password,
    });
    assert.deepEqual(decodeRequest(frame), request, 'both paths give the same request');
  }
  assert.equal(decodeSimpleBind(toBer(new messages.UnbindRequest({ messageId: 3 }))), undefined);
});

test('UnbindRequest', () => {
  assert.deepEqual(decodeRequest(toBer(new messages.UnbindRequest({ messageId: 3 }))), { messageId: 3, controls: [], kind: 'unbind' });
});

test('SearchRequest: every field, and a filter with every choice ldapjs writes', () => {
  const frame = toBer(new messages.SearchRequest({
    messageId: 9, baseObject: 'ou=People,dc=example,dc=com', scope: 'sub', derefAliases: 3, sizeLimit: 500, timeLimit: 60, typesOnly: true,
    filter: parseString('(&(uid=a*b*c)(!(cn>=x))(|(mail=*)(sn~=y))(cn:caseExactMatch:=Z))'),
    attributes: ['cn', 'entryUUID', '+'],
  }));
  const filter: Filter = {
    type: 'and',
    filters: [
      { type: 'substrings', attribute: 'uid', initial: b('a'), any: [b('b')], final: b('c') },
      { type: 'not', filter: { type: 'greaterOrEqual', attribute: 'cn', value: b('x') } },
      { type: 'or', filters: [{ type: 'present', attribute: 'mail' }, { type: 'approx', attribute: 'sn', value: b('y') }] },
      { type: 'extensible', matchingRule: 'caseExactMatch', attribute: 'cn', value: b('Z'), dnAttributes: false },
    ],
  };
  assert.deepEqual(decodeRequest(frame), {
    messageId: 9, controls: [], kind: 'search', base: 'ou=People,dc=example,dc=com', scope: 'sub', derefAliases: 3,
    sizeLimit: 500, timeLimit: 60, typesOnly: true, filter, attributes: ['cn', 'entryUUID', '+'], filterTerms: 8,
  });
});

function searchFilter(filter: string): Filter {
  const request = decodeRequest(toBer(new messages.SearchRequest({ messageId: 1, baseObject: 'dc=x', filter: parseString(filter) })));
  assert.ok(request.kind === 'search');
  return request.filter;
}

test('filters: substrings shapes, lessOrEqual, extensible forms, (&)', () => {
  assert.deepEqual(searchFilter('(cn=*x*)'), { type: 'substrings', attribute: 'cn', any: [b('x')] });
  assert.deepEqual(searchFilter('(cn=x*)'), { type: 'substrings', attribute: 'cn', initial: b('x'), any: [] });
  assert.deepEqual(searchFilter('(cn=*x)'), { type: 'substrings', attribute: 'cn', any: [], final: b('x') });
  assert.deepEqual(searchFilter('(age<=42)'), { type: 'lessOrEqual', attribute: 'age', value: b('42') });
  assert.deepEqual(searchFilter('(:dn:2.4.6.8.10:=Barney)'), { type: 'extensible', matchingRule: '2.4.6.8.10', value: b('Barney'), dnAttributes: true });
  assert.deepEqual(searchFilter('(o:dn:=Ace)'), { type: 'extensible', attribute: 'o', value: b('Ace'), dnAttributes: true });
  assert.deepEqual(searchFilter('(&)'), { type: 'and', filters: [] });
});

test('search scopes base, one, sub and children (3, subordinate subtree)', () => {
  for (const [scope, expected] of [['base', 'base'], ['one', 'one'], ['sub', 'sub']] as const) {
    const request = decodeRequest(toBer(new messages.SearchRequest({ messageId: 1, baseObject: 'dc=x', scope })));
    assert.equal(request.kind === 'search' && request.scope, expected);
  }
  const sub = toBer(new messages.SearchRequest({ messageId: 1, baseObject: 'dc=x', scope: 'sub' }));
  const children = decodeRequest(patch(sub, '0a0102', '0a0103'));
  assert.equal(children.kind === 'search' && children.scope, 'children');
  const undefinedScope = decodeRequest(patch(sub, '0a0102', '0a0104'));
  assert.equal(undefinedScope.kind === 'search' && undefinedScope.invalid, 'invalid scope', 'answered protocolError by the search, as OpenLDAP does');
});

test('SearchRequest with the paged results control', () => {
  const frame = toBer(new messages.SearchRequest({
    messageId: 11, baseObject: 'dc=x',
    controls: [new PagedResultsControl({ criticality: true, value: { size: 100, cookie: Buffer.from([1, 2, 3]) } })],
  }));
  const [control] = decodeRequest(frame).controls;
  assert.equal(control?.type, PAGED_RESULTS_OID);
  assert.equal(control?.critical, true);
  assert.deepEqual(decodePagedResults(control!.value!), { size: 100, cookie: Buffer.from([1, 2, 3]) });
});

test('ModifyRequest: add, delete (no values), replace, increment', () => {
  const frame = toBer(new messages.ModifyRequest({
    messageId: 5, object: 'uid=a,dc=x',
    changes: [
      new Change({ operation: 'replace', modification: new Attribute({ type: 'mail', values: ['a@x', 'b@x'] }) }),
      new Change({ operation: 'delete', modification: new Attribute({ type: 'description' }) }),
      new Change({ operation: 'add', modification: new Attribute({ type: 'counter', values: ['1'] }) }),
    ],
  }));
  assert.deepEqual(decodeRequest(frame), {
    messageId: 5, controls: [], kind: 'modify', dn: 'uid=a,dc=x',
    changes: [
      { op: 'replace', attribute: 'mail', values: [b('a@x'), b('b@x')] },
      { op: 'delete', attribute: 'description', values: [] },
      { op: 'add', attribute: 'counter', values: [b('1')] },
    ],
  });
  const increment = decodeRequest(patch(frame, '0a0100', '0a0103'));
  assert.equal(increment.kind === 'modify' && increment.changes[2]?.op, 'increment');
  assertProtocolError(patch(frame, '0a0100', '0a0104'), /modify operation/, 5);
});

test('AddRequest', () => {
  const frame = toBer(new messages.AddRequest({
    messageId: 6, entry: 'cn=x,dc=y',
    attributes: [new Attribute({ type: 'objectClass', values: ['top', 'person'] }), new Attribute({ type: 'jpegPhoto', values: [Buffer.from([0, 0xff])] })],
  }));
  assert.deepEqual(decodeRequest(frame), {
    messageId: 6, controls: [], kind: 'add', dn: 'cn=x,dc=y',
    attributes: [{ name: 'objectClass', values: [b('top'), b('person')] }, { name: 'jpegPhoto', values: [Buffer.from([0, 0xff])] }],
  });
  const empty = toBer(new messages.AddRequest({ messageId: 6, entry: 'cn=x,dc=y', attributes: [new Attribute({ type: 'cn' })] }));
  assertProtocolError(empty, /no values/, 6);
});

test('DelRequest (primitive: the DN is the content)', () => {
  assert.deepEqual(decodeRequest(toBer(new messages.DeleteRequest({ messageId: 7, entry: 'cn=x,dc=y' }))), {
    messageId: 7, controls: [], kind: 'delete', dn: 'cn=x,dc=y',
  });
});

test('ModifyDNRequest, with and without newSuperior', () => {
  const moved = toBer(new messages.ModifyDnRequest({ messageId: 8, entry: 'cn=x,dc=y', newRdn: 'cn=z', deleteOldRdn: true, newSuperior: 'ou=p,dc=y' }));
  assert.deepEqual(decodeRequest(moved), {
    messageId: 8, controls: [], kind: 'modifyDn', dn: 'cn=x,dc=y', newRdn: 'cn=z', deleteOldRdn: true, newSuperior: 'ou=p,dc=y',
  });
  const renamed = toBer(new messages.ModifyDnRequest({ messageId: 8, entry: 'cn=x,dc=y', newRdn: 'cn=z', deleteOldRdn: false }));
  assert.deepEqual(decodeRequest(renamed), { messageId: 8, controls: [], kind: 'modifyDn', dn: 'cn=x,dc=y', newRdn: 'cn=z', deleteOldRdn: false });
});

test('CompareRequest, AbandonRequest, ExtendedRequest', () => {
  assert.deepEqual(decodeRequest(toBer(new messages.CompareRequest({ messageId: 9, entry: 'cn=x,dc=y', attribute: 'sn', value: 'Smith' }))), {
    messageId: 9, controls: [], kind: 'compare', dn: 'cn=x,dc=y', attribute: 'sn', value: b('Smith'),
  });
  assert.deepEqual(decodeRequest(toBer(new messages.AbandonRequest({ messageId: 10, abandonId: 9 }))), {
    messageId: 10, controls: [], kind: 'abandon', abandonId: 9,
  });
  assert.deepEqual(decodeRequest(toBer(new messages.ExtensionRequest({ messageId: 12, requestName: '1.3.6.1.4.1.4203.1.11.3' }))), {
    messageId: 12, controls: [], kind: 'extended', oid: '1.3.6.1.4.1.4203.1.11.3',
  });
  assert.deepEqual(decodeRequest(toBer(new messages.ExtensionRequest({ messageId: 12, requestName: '1.2.3.4', requestValue: 'abc' }))), {
    messageId: 12, controls: [], kind: 'extended', oid: '1.2.3.4', value: b('abc'),
  });
});

// ---------------------------------------------------------------- malformed requests

test('malformed requests: ProtocolError, with the message ID when it was readable', () => {
  // 30 11 02 01 05 60 0c 02 01 03 04 04 "cn=a" 80 01 "p"
  const bind = toBer(new messages.BindRequest({ messageId: 5, name: 'cn=a', credentials: 'p' }));
  const hex = (text: string) => Buffer.from(text, 'hex');
  assertProtocolError(bind.subarray(0, 10), /LDAPMessage: length exceeds/);
  assertProtocolError(hex('3005020105610000'), /unknown or not a request, tag 0x61/, 5);
  assertProtocolError(hex('30050201ff4200'), /messageID: negative/);
  assertProtocolError(hex('3009020500800000004200'), /messageID: an integer must be 1 to 4 octets/);
  assertProtocolError(hex('300402004200'), /messageID: an integer must be 1 to 4 octets/);
  assertProtocolError(hex('3006020105420100'), /NULL must be empty/, 5);
  assertProtocolError(hex('3003020105'), /protocolOp: missing/, 5);
  assertProtocolError(Buffer.concat([bind, Buffer.from([0])]), /unexpected data after it/, 5);
  const inner = Buffer.concat([bind, hex('0400')]);
  inner[1]! += 2;
  inner[6]! += 2;
  assertProtocolError(inner, /BindRequest: unexpected data at its end/, 5);
  assertProtocolError(hex('300e020105600902010304' + '04636e3d61'), /bind authentication: missing/, 5);
  assertProtocolError(patch(bind, '800170', '810170'), /authentication: unsupported choice 0x81/, 5);
  assertProtocolError(patch(bind, '020103', '040103'), /bind version: expected tag 0x02, got 0x04/, 5);
  // an indefinite length and a five-octet length inside: @ldapjs/asn1's plain errors become ProtocolError
  assertProtocolError(hex('300702010560800000'), /malformed BER: Indefinite length/, 5);
  assertProtocolError(hex('300a020105608500000000' + '01'), /malformed BER: Encoding too long/, 5);
  // a length of 2^31, which @ldapjs/asn1 computes as negative
  assertProtocolError(hex('30090201056084800000' + '00'), /length exceeds its container/, 5);
  assertProtocolError(patch(bind, '636e3d61', '636eff61'), /bind name: not valid UTF-8/, 5);
  const modDn = toBer(new messages.ModifyDnRequest({ messageId: 8, entry: 'cn=x', newRdn: 'cn=z', deleteOldRdn: true }));
  assertProtocolError(patchBoolean(modDn), /a boolean must be one octet/, 8);
});

/** A ModifyDNRequest whose deleteoldrdn BOOLEAN has two content octets. */
function patchBoolean(frame: Buffer): Buffer {
  const grown = patch(frame, '0101ff', '0102ffff');
  grown[1]! += 1;
  grown[6]! += 1;
  return grown;
}

function substrings(parts: [number, string][]): Buffer {
  return message(1, (w) => {
    w.startSequence(0x63);
    w.writeString('dc=x');
    w.writeEnumeration(0);
    w.writeEnumeration(0);
    w.writeInt(0);
    w.writeInt(0);
    w.writeBoolean(false);
    w.startSequence(0xa4);
    w.writeString('cn');
    w.startSequence(0x30);
    for (const [tag, value] of parts) w.writeString(value, tag);
    w.endSequence();
    w.endSequence();
    w.startSequence(0x30);
    w.endSequence();
    w.endSequence();
  });
}

test('substrings: initial at most once and first, final at most once and last, at least one', () => {
  const ok = decodeRequest(substrings([[0x80, 'a'], [0x81, 'b'], [0x81, 'c'], [0x82, 'd']]));
  assert.deepEqual(ok.kind === 'search' && ok.filter, { type: 'substrings', attribute: 'cn', initial: b('a'), any: [b('b'), b('c')], final: b('d') });
  assertProtocolError(substrings([[0x81, 'b'], [0x80, 'a']]), /initial must be the first/, 1);
  assertProtocolError(substrings([[0x80, 'a'], [0x80, 'a']]), /initial must be the first/, 1);
  assertProtocolError(substrings([[0x82, 'd'], [0x81, 'b']]), /final must be the last/, 1);
  assertProtocolError(substrings([[0x82, 'd'], [0x82, 'd']]), /final must be the last/, 1);
  assertProtocolError(substrings([]), /empty/, 1);
  assertProtocolError(substrings([[0x83, 'x']]), /unknown choice/, 1);
});

/** A SearchRequest whose filter is given as raw bytes. */
function searchWithFilter(filter: Buffer): Buffer {
  return message(2, (w) => {
    w.startSequence(0x63);
    w.writeString('dc=x');
    w.writeEnumeration(2);
    w.writeEnumeration(0);
    w.writeInt(0);
    w.writeInt(0);
    w.writeBoolean(false);
    w.appendBuffer(filter);
    w.startSequence(0x30);
    w.endSequence();
    w.endSequence();
  });
}

/** `depth` nested filters of tag `tag` around (objectClass=*), built inside out without recursion. */
function nestedFilter(tag: number, depth: number): Buffer {
  const inner = Buffer.from([0x87, 0x0b, ...Buffer.from('objectClass')]);
  const headers: Buffer[] = [];
  let length = inner.length;
  for (let i = 0; i < depth; i++) {
    const header = length < 0x80 ? Buffer.from([tag, length])
      : length <= 0xff ? Buffer.from([tag, 0x81, length])
        : length <= 0xffff ? Buffer.from([tag, 0x82, length >> 8, length & 0xff])
          : Buffer.from([tag, 0x83, length >> 16, (length >> 8) & 0xff, length & 0xff]);
    headers.push(header);
    length += header.length;
  }
  return Buffer.concat([...headers.reverse(), inner]);
}

test('filter nesting is capped: 64 levels pass, deeper is refused, 10,000 levels do not touch the stack', () => {
  const deepest = decodeRequest(searchWithFilter(nestedFilter(0xa2, MAX_FILTER_DEPTH)));
  assert.equal(deepest.kind, 'search');
  assertProtocolError(searchWithFilter(nestedFilter(0xa2, MAX_FILTER_DEPTH + 1)), /nested deeper/, 2);
  assertProtocolError(searchWithFilter(nestedFilter(0xa2, 10_000)), /nested deeper/, 2);
  assertProtocolError(searchWithFilter(nestedFilter(0xa0, 10_000)), /nested deeper/, 2);
});

test('filter size is capped: an OR of 20,000 terms is refused', () => {
  const term = Buffer.from([0x87, 0x02, 0x63, 0x6e]);
  const terms = Buffer.concat(Array.from({ length: 20_000 }, () => term));
  const or = Buffer.concat([Buffer.from([0xa1, 0x83, terms.length >> 16, (terms.length >> 8) & 0xff, terms.length & 0xff]), terms]);
  assertProtocolError(searchWithFilter(or), /more than 10000 elements/, 2);
});

/** A search request with `filter` (RFC 4515 text), decoded keeping at most `keep` filter terms. */
function searchKeeping(filter: string, keep: number): Extract<Request, { kind: 'search' }> {
  const request = decodeRequest(toBer(new messages.SearchRequest({ messageId: 4, baseObject: 'dc=x', filter: parseString(filter) })), { keepFilterTerms: keep });
  assert.ok(request.kind === 'search');
  return request;
}

test('keepFilterTerms: a larger filter is cut after that many terms and its terms counted (filterCut); within it nothing changes', () => {
  const terms = Array.from({ length: 300 }, (_, i) => `(description=*q${i}*)`).join('');
  const cut = searchKeeping(`(|${terms}(!(cn=x))(&(sn=a)(sn=b)))`, 256);
  assert.equal(cut.filterCut, 1 + 300 + 2 + 3, 'every and/or/not and assertion sent is counted');
  assert.ok(cut.filter.type === 'or' && cut.filter.filters.length === 255, 'the or and its first 255 terms were built');
  const exact = searchKeeping(`(|${terms.slice(0, terms.indexOf('(description=*q255*)'))})`, 256);
  assert.equal(exact.filterCut, undefined, '256 terms with a cap of 256: not cut');
  assert.ok(exact.filter.type === 'or' && exact.filter.filters.length === 255);
  assert.deepEqual(searchKeeping('(&(uid=a)(!(cn=b)))', 3).filter, searchKeeping('(&(uid=a)(!(cn=b)))', 100).filter);
});

test('keepFilterTerms: the part stepped over still keeps the caps on depth and elements, and its structure', () => {
  const deep = Buffer.concat([Buffer.from([0xa1, 0x82, 0, 0]), Buffer.from([0x87, 0x02, 0x63, 0x6e]), nestedFilter(0xa0, MAX_FILTER_DEPTH + 1)]);
  deep.writeUInt16BE(deep.length - 4, 2);
  assert.throws(() => decodeRequest(searchWithFilter(deep), { keepFilterTerms: 1 }), /nested deeper/);
  const term = Buffer.from([0x87, 0x02, 0x63, 0x6e]);
  const many = Buffer.concat(Array.from({ length: 20_000 }, () => term));
  const or = Buffer.concat([Buffer.from([0xa1, 0x83, many.length >> 16, (many.length >> 8) & 0xff, many.length & 0xff]), many]);
  assert.throws(() => decodeRequest(searchWithFilter(or), { keepFilterTerms: 10 }), /more than 10000 elements/);
  const notOfTwo = Buffer.from([0xa1, 0x0c, 0x87, 0x02, 0x63, 0x6e, 0xa2, 0x06, 0x87, 0x01, 0x61, 0x87, 0x01, 0x62]);
  assert.throws(() => decodeRequest(searchWithFilter(notOfTwo), { keepFilterTerms: 1 }), /not filter: unexpected data/);
  assert.throws(() => decodeRequest(searchWithFilter(Buffer.from('a1068702636eaa00', 'hex')), { keepFilterTerms: 1 }), /unknown choice 0xaa/);
});

test('filter choices: unknown tag, extensible without rule or type, empty OR', () => {
  assertProtocolError(searchWithFilter(Buffer.from('aa00', 'hex')), /unknown choice 0xaa/, 2);
  assertProtocolError(searchWithFilter(Buffer.from('a9058303616263', 'hex')), /matching rule or a type/, 2);
  const or = decodeRequest(searchWithFilter(Buffer.from('a100', 'hex')));
  assert.deepEqual(or.kind === 'search' && or.filter, { type: 'or', filters: [] });
  assertProtocolError(searchWithFilter(Buffer.from('a200', 'hex')), /filter: missing/, 2);
  // values are raw octets: '*', NUL and non-UTF-8 bytes (@ldapjs/filter cannot write these: it
  // puts the escaped text, e.g. 'a\\2ab', into the BER)
  const raw = decodeRequest(searchWithFilter(Buffer.from('a30a0402636e0404612a00ff', 'hex')));
  assert.deepEqual(raw.kind === 'search' && raw.filter, { type: 'equality', attribute: 'cn', value: Buffer.from([0x61, 0x2a, 0x00, 0xff]) });
});

// ---------------------------------------------------------------- hostile input

function samples(): Buffer[] {
  return [
    toBer(new messages.BindRequest({ messageId: 1, name: 'cn=admin,dc=example,dc=com', credentials: 'secret' })),
    toBer(new messages.BindRequest({ messageId: 2, name: 'cn=a', credentials: 'p', controls: [new Control({ type: '1.2.3', criticality: true, value: b('v') })] })),
    toBer(new messages.UnbindRequest({ messageId: 3 })),
    toBer(new messages.SearchRequest({
      messageId: 4, baseObject: 'ou=People,dc=example,dc=com', scope: 'sub', sizeLimit: 10,
      filter: parseString('(&(uid=a*b*c)(!(cn>=x))(|(mail=*)(sn~=y))(cn:caseExactMatch:=Z)(:dn:1.2.3:=q))'), attributes: ['cn', '+'],
      controls: [new PagedResultsControl({ value: { size: 5, cookie: b('ck') } })],
    })),
    toBer(new messages.ModifyRequest({ messageId: 5, object: 'uid=a,dc=x', changes: [new Change({ operation: 'replace', modification: new Attribute({ type: 'mail', values: ['a@x', 'b@x'] }) })] })),
    toBer(new messages.AddRequest({ messageId: 6, entry: 'cn=x,dc=y', attributes: [new Attribute({ type: 'objectClass', values: ['top', 'person'] })] })),
    toBer(new messages.DeleteRequest({ messageId: 7, entry: 'cn=x,dc=y' })),
    toBer(new messages.ModifyDnRequest({ messageId: 8, entry: 'cn=x,dc=y', newRdn: 'cn=z', deleteOldRdn: true, newSuperior: 'ou=p,dc=y' })),
    toBer(new messages.CompareRequest({ messageId: 9, entry: 'cn=x,dc=y', attribute: 'sn', value: 'Smith' })),
    toBer(new messages.AbandonRequest({ messageId: 10, abandonId: 9 })),
    toBer(new messages.ExtensionRequest({ messageId: 11, requestName: '1.2.3.4', requestValue: 'abc' })),
  ];
}

test('every truncation of every request is a ProtocolError', () => {
  for (const frame of samples()) {
    assert.equal(typeof decodeRequest(frame).kind, 'string');
    for (let cut = 0; cut < frame.length; cut++) {
      assert.throws(() => decodeRequest(frame.subarray(0, cut)), ProtocolError, `cut at ${cut} of ${frame.toString('hex')}`);
      assert.equal(decodeSimpleBind(frame.subarray(0, cut)), undefined);
    }
  }
});

/** mulberry32: a small seeded generator, so failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(frame: Buffer, next: () => number): Buffer {
  const pick = (n: number) => Math.floor(next() * n);
  const bytes = [...frame];
  const edits = 1 + pick(3);
  for (let i = 0; i < edits; i++) {
    const at = pick(bytes.length);
    const kind = pick(4);
    if (kind === 0) bytes[at] = pick(256);
    else if (kind === 1) bytes[at] = bytes[at]! ^ (1 << pick(8));
    else if (kind === 2) bytes.splice(at, 0, pick(256));
    else bytes.splice(at, 1);
  }
  return Buffer.from(bytes);
}

/** decodeSimpleBind returns exactly the control-less simple binds that decodeRequest returns. */
/** `request`: what the general decoder made of the frame (undefined: it refused it). decodeRequest must agree too. */
function assertFastPathAgrees(frame: Buffer, request: Request | undefined): void {
  if (request) assert.deepEqual(decodeRequest(frame), request);
  else assert.throws(() => decodeRequest(frame), ProtocolError);
  const fast = decodeSimpleBind(frame);
  if (request?.kind === 'bind' && request.authentication.method === 'simple' && request.controls.length === 0) {
    assert.deepEqual(fast, { messageId: request.messageId, version: request.version, name: request.name, password: request.authentication.password });
  } else {
    assert.equal(fast, undefined, frame.toString('hex'));
  }
}

test('5,000 seeded random mutations: a value or a ProtocolError, never anything else; the fast path agrees', () => {
  const next = random(20240514);
  const base = samples();
  let decoded = 0;
  let refused = 0;
  for (let i = 0; i < 5000; i++) {
    const frame = mutate(base[i % base.length]!, next);
    let request: Request | undefined;
    try {
      request = decodeRequestFully(frame);
      decoded++;
    } catch (error) {
      assert.ok(error instanceof ProtocolError, `mutation ${i} (${frame.toString('hex')}) threw ${String(error)}`);
      refused++;
    }
    assertFastPathAgrees(frame, request);
  }
  assert.ok(decoded > 100 && refused > 1000, `decoded ${decoded}, refused ${refused}`);
});

test('2,000 seeded mutations of simple binds: decodeSimpleBind agrees with decodeRequest', () => {
  const next = random(7);
  const binds = [
    toBer(new messages.BindRequest({ messageId: 1, name: 'uid=user.1,ou=People,dc=example,dc=com', credentials: 'password' })),
    withEmptyControls(toBer(new messages.BindRequest({ messageId: 9, name: 'a', credentials: 'b' }))),
  ];
  for (let i = 0; i < 2000; i++) {
    const frame = mutate(binds[i % binds.length]!, next);
    let request: Request | undefined;
    try {
      request = decodeRequestFully(frame);
    } catch (error) {
      assert.ok(error instanceof ProtocolError);
    }
    assertFastPathAgrees(frame, request);
  }
});

test('random garbage frames: a ProtocolError or a value', () => {
  const next = random(99);
  for (let i = 0; i < 2000; i++) {
    const frame = Buffer.from(Array.from({ length: 2 + Math.floor(next() * 40) }, () => Math.floor(next() * 256)));
    frame[0] = 0x30;
    frame[1] = frame.length - 2;
    try {
      decodeRequest(frame);
    } catch (error) {
      assert.ok(error instanceof ProtocolError, String(error));
    }
  }
});

// ---------------------------------------------------------------- responses

test('encodeResult writes each response type as @ldapjs/messages reads (and writes) it', () => {
  const cases: [number, string][] = [
    [ResponseOp.bind, 'BindResponse'], [ResponseOp.searchDone, 'SearchResultDone'], [ResponseOp.modify, 'ModifyResponse'],
    [ResponseOp.add, 'AddResponse'], [ResponseOp.delete, 'DeleteResponse'], [ResponseOp.modifyDn, 'ModifyDnResponse'],
    [ResponseOp.compare, 'CompareResponse'],
  ];
  for (const [op, type] of cases) {
    const frame = encodeResult(77, op as ResponseOp, { code: 32, matchedDn: 'dc=example,dc=com', message: 'no such object: Zoë' });
    const parsed = parseResponse(frame);
    assert.equal(parsed.type, type);
    assert.equal(parsed.messageId, 77);
    assert.equal(parsed.status, 32);
    assert.equal(parsed.matchedDN, 'dc=example,dc=com');
    assert.equal(parsed.diagnosticMessage, 'no such object: Zoë');
    const theirs = toBer(new messages[type]({ messageId: 77, status: 32, matchedDN: 'dc=example,dc=com', diagnosticMessage: 'no such object: Zoë' }));
    assert.ok(frame.equals(theirs), `${type}: ${frame.toString('hex')} vs ${theirs.toString('hex')}`);
  }
  const plain = parseResponse(encodeResult(0x7fffffff, ResponseOp.bind, { code: 0 }));
  assert.equal(plain.messageId, 0x7fffffff);
  assert.equal(plain.matchedDN, '');
  assert.equal(plain.diagnosticMessage, '');
});

test('encodeBindResponse with serverSaslCreds [7]', () => {
  const frame = encodeBindResponse(3, { code: 14, message: 'continue' }, Buffer.from([1, 2, 3]));
  const parsed = parseResponse(frame, false);
  assert.equal(parsed.type, 'BindResponse');
  assert.equal(parsed.status, 14);
  assert.ok(frame.subarray(-5).equals(Buffer.from([0x87, 0x03, 1, 2, 3])));
  const reader = new BerReader(frame);
  reader.readSequence(0x30);
  reader.readInt();
  reader.readSequence(0x61);
  reader.readEnumeration();
  reader.readString();
  reader.readString();
  assert.deepEqual(reader.readString(0x87, true), Buffer.from([1, 2, 3]));
  assert.equal(reader.offset, frame.length);
  assert.ok(encodeBindResponse(3, { code: 0 }).equals(encodeResult(3, ResponseOp.bind, { code: 0 })));
});

test('encodeSearchEntry: read back by @ldapjs/messages, byte-identical to its encoder', () => {
  const attributes = [
    { name: 'objectClass', values: [b('top'), b('person')] },
    { name: 'cn', values: [b('Zoë 日本')] },
    { name: 'jpegPhoto', values: [Buffer.alloc(300, 0xab)] },
    { name: 'description', values: [] },
  ];
  const frame = encodeSearchEntry(1234, 'cn=Zoe,dc=example,dc=com', attributes);
  const parsed = parseResponse(frame);
  assert.equal(parsed.type, 'SearchResultEntry');
  assert.equal(parsed.messageId, 1234);
  assert.equal(parsed.objectName.toString(), 'cn=Zoe,dc=example,dc=com');
  assert.deepEqual(parsed.attributes.map((a: any) => a.type), ['objectClass', 'cn', 'jpegPhoto', 'description']);
  assert.deepEqual(parsed.attributes[1].buffers, [b('Zoë 日本')]);
  assert.deepEqual(parsed.attributes[2].buffers, [Buffer.alloc(300, 0xab)]);
  const theirs = toBer(new messages.SearchResultEntry({
    messageId: 1234, objectName: 'cn=Zoe,dc=example,dc=com',
    attributes: attributes.map((a) => new Attribute({ type: a.name, values: a.values })),
  }));
  assert.ok(frame.equals(theirs));
  // a DN is written as its UTF-8 bytes, unchanged (ldapjs's DN class would escape them)
  const unicode = encodeSearchEntry(1, 'cn=Zoë 日本,o=x', []);
  const reader = new BerReader(unicode);
  reader.readSequence(0x30);
  reader.readInt();
  reader.readSequence(0x64);
  assert.equal(reader.readString(), 'cn=Zoë 日本,o=x');
  const empty = encodeSearchEntry(0, '', []);
  assert.ok(empty.equals(Buffer.from('3009020100640404003000', 'hex')));
});

test('encodeSearchEntry: every length form, up to a 17 MiB value (beyond BerWriter\'s 16 MiB limit)', () => {
  for (const size of [0, 127, 128, 255, 256, 65_535, 65_536, 17 * 1024 * 1024]) {
    const value = Buffer.alloc(size, 7);
    const frame = encodeSearchEntry(5, 'cn=x', [{ name: 'a', values: [value] }]);
    const reader = new BerReader(frame);
    reader.readSequence(0x30);
    assert.equal(reader.offset + reader.length, frame.length, `outer length for ${size}`);
    assert.equal(reader.readInt(), 5);
    reader.readSequence(0x64);
    assert.equal(reader.readString(), 'cn=x');
    reader.readSequence(0x30);
    reader.readSequence(0x30);
    assert.equal(reader.readString(), 'a');
    reader.readSequence(0x31);
    const read = reader.readString(0x04, true);
    assert.equal(read.length, size);
    assert.ok(read.equals(value));
    assert.equal(reader.offset, frame.length);
  }
});

test('encodeSearchDone with the paged results response control', () => {
  const cookie = Buffer.from('opaque-cookie');
  const frame = encodeSearchDone(21, { code: 0 }, [{ type: PAGED_RESULTS_OID, critical: false, value: encodePagedResults(0, cookie) }]);
  const parsed = parseResponse(frame);
  assert.equal(parsed.type, 'SearchResultDone');
  assert.equal(parsed.status, 0);
  assert.equal(parsed.controls.length, 1);
  assert.equal(parsed.controls[0].type, PAGED_RESULTS_OID);
  assert.equal(parsed.controls[0].value.size, 0);
  assert.deepEqual(parsed.controls[0].value.cookie, cookie);
  const critical = parseResponse(encodeSearchDone(21, { code: 0 }, [{ type: '1.2.3', critical: true }]));
  assert.equal(critical.controls[0].criticality, true);
});

test('encodeExtendedResponse and the Notice of Disconnection', () => {
  const frame = encodeExtendedResponse(30, { code: 0 }, '1.3.6.1.4.1.4203.1.11.3', b('dn:cn=a'));
  const parsed = parseResponse(frame, false);
  assert.equal(parsed.type, 'ExtensionResponse');
  assert.equal(parsed.messageId, 30);
  assert.equal(parsed.responseName, '1.3.6.1.4.1.4203.1.11.3');
  assert.ok(frame.subarray(-9).equals(Buffer.concat([Buffer.from([0x8b, 0x07]), b('dn:cn=a')])));
  const bare = parseResponse(encodeExtendedResponse(31, { code: 53, message: 'no' }));
  assert.equal(bare.status, 53);
  assert.equal(bare.responseName, undefined);
  const notice = parseResponse(encodeNoticeOfDisconnection({ code: 2, message: 'protocol error' }));
  assert.equal(notice.messageId, 0);
  assert.equal(notice.status, 2);
  assert.equal(notice.responseName, NOTICE_OF_DISCONNECTION_OID);
  assert.equal(notice.diagnosticMessage, 'protocol error');
});

test('paged results control value: round trip, ldapjs\'s own encoding, garbage refused', () => {
  for (const [size, cookie] of [[0, Buffer.alloc(0)], [100, Buffer.from([0, 1, 2])], [0x7fffffff, Buffer.alloc(200, 9)]] as const) {
    assert.deepEqual(decodePagedResults(encodePagedResults(size, cookie)), { size, cookie });
  }
  // ldapjs writes no cookie at all on the first page; read it as an empty cookie
  const first = new PagedResultsControl({ value: { size: 50 } });
  const writer = new BerWriter();
  first.toBer(writer);
  const control = decodeRequest(message(1, (w) => w.writeBuffer(Buffer.alloc(0), 0x4a), (w) => {
    w.startSequence(0xa0);
    w.appendBuffer(Buffer.from(writer.buffer));
    w.endSequence();
  })).controls[0]!;
  assert.deepEqual(decodePagedResults(control.value!), { size: 50, cookie: Buffer.alloc(0) });
  for (const garbage of ['', '00', '3000', '30030401ff', '30050201ff0400', '300602010104000000', '3005020101040100', '31050201010400']) {
    assert.throws(() => decodePagedResults(Buffer.from(garbage, 'hex')), ProtocolError, garbage);
  }
  assert.throws(() => encodePagedResults(-1, Buffer.alloc(0)), ProtocolError);
});

test('encodePagedResults writes what @ldapjs/controls writes, and reads back', () => {
  for (const size of [0, 1, 127, 128, 255, 256, 65_535, 0x7fffffff]) {
    for (const length of [0, 12, 200]) {
      const cookie = Buffer.alloc(length, 7);
      const theirs = new PagedResultsControl({ value: { size, cookie } }).toBer();
      const ours = encodePagedResults(size, cookie);
      assert.ok(Buffer.from(theirs.buffer ?? theirs).includes(ours), `size ${size}, cookie ${length} bytes`);
      assert.deepEqual(decodePagedResults(ours), { size, cookie });
    }
  }
});
