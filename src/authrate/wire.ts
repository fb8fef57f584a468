/**
 * The least the load clients need on the wire: simple BindRequests, SearchRequests (authrate's
 * search-then-bind, searchrate), ModifyRequests that replace values (modrate), AddRequests (the
 * benchmarks that load a server through LDAP) and StartTLS, encoded directly; of a response only the messageID, the operation tag, the resultCode and an
 * entry's DN are read, nothing else parsed.
 */
import {
  elementSize, integerSize, stringLength, writeHeader, writeInteger, writeOctets, writeString,
} from '../protocol/tlv.js';
import { START_TLS_OID } from '../protocol/index.js';

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.byteLength), content]);
}

function integer(value: number, tag = 0x02): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest & 0xff);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(tag, Buffer.from(bytes));
}

const ENUMERATED = 0x0a;
const octets = (text: string, tag = 0x04): Buffer => tlv(tag, Buffer.from(text, 'utf8'));

/** Response operation tags (RFC 4511 4.2 - 4.12). */
export const SEARCH_ENTRY = 0x64;
export const SEARCH_DONE = 0x65;


/**
 * LDAPMessage { messageID, [APPLICATION 0] BindRequest { version 3, name, [0] simple } }, written
 * straight into one exactly-sized buffer with the server's own response writers (tlv.ts): the load
 * clients send one per bind.
 */
export function encodeSimpleBind(messageId: number, dn: string, password: Buffer): Buffer {
  const dnLength = stringLength(dn);
  const bindLength = elementSize(integerSize(3)) + elementSize(dnLength) + elementSize(password.byteLength);
  const messageLength = elementSize(integerSize(messageId)) + elementSize(bindLength);
  const buffer = Buffer.allocUnsafe(elementSize(messageLength));
  let pos = writeHeader(buffer, 0, 0x30, messageLength);
  pos = writeInteger(buffer, pos, 0x02, messageId);
  pos = writeHeader(buffer, pos, 0x60, bindLength);
  pos = writeInteger(buffer, pos, 0x02, 3);
  pos = writeString(buffer, pos, 0x04, dn, dnLength);
  writeOctets(buffer, pos, 0x80, password);
  return buffer;
}

export interface SearchSpec {
  readonly base: string;
  /** 0 base, 1 one, 2 sub, 3 subordinates. */
  readonly scope: number;
  /** 0 never, 1 searching, 2 finding, 3 always. */
  readonly deref: number;
  /** The filter, BER-encoded. */
  readonly filter: Buffer;
  readonly attributes: readonly string[];
}

/** LDAPMessage { messageID, [APPLICATION 3] SearchRequest } without limits, types and values. */
export function encodeSearch(messageId: number, search: SearchSpec): Buffer {
  const request = tlv(0x63, Buffer.concat([
    octets(search.base), integer(search.scope, ENUMERATED), integer(search.deref, ENUMERATED), integer(0), integer(0),
    Buffer.from([0x01, 0x01, 0x00]), search.filter, tlv(0x30, Buffer.concat(search.attributes.map((name) => octets(name)))),
  ]));
  return tlv(0x30, Buffer.concat([integer(messageId), request]));
}

/** One change of a modify: the attribute's values replaced by these. */
export interface Replacement {
  readonly attribute: string;
  readonly values: readonly string[];
}

const REPLACE = 2;

/** LDAPMessage { messageID, [APPLICATION 6] ModifyRequest { object, changes: each a replace of one attribute } }. */
export function encodeModify(messageId: number, dn: string, replacements: readonly Replacement[]): Buffer {
  const changes = replacements.map(({ attribute, values }) => tlv(0x30, Buffer.concat([
    integer(REPLACE, ENUMERATED), tlv(0x30, Buffer.concat([octets(attribute), tlv(0x31, Buffer.concat(values.map((value) => octets(value))))])),
  ])));
  const request = tlv(0x66, Buffer.concat([octets(dn), tlv(0x30, Buffer.concat(changes))]));
  return tlv(0x30, Buffer.concat([integer(messageId), request]));
}

/** One attribute of an AddRequest: its description and its values, as bytes. */
export interface AddAttribute {
  readonly name: string;
  readonly values: readonly Buffer[];
}

/** LDAPMessage { messageID, [APPLICATION 8] AddRequest { entry, attributes } }. */
export function encodeAdd(messageId: number, dn: string, attributes: readonly AddAttribute[]): Buffer {
  const list = attributes.map(({ name, values }) => tlv(0x30, Buffer.concat([octets(name), tlv(0x31, Buffer.concat(values.map((value) => tlv(0x04, value))))])));
  const request = tlv(0x68, Buffer.concat([octets(dn), tlv(0x30, Buffer.concat(list))]));
  return tlv(0x30, Buffer.concat([integer(messageId), request]));
}

/** LDAPMessage { messageID, [APPLICATION 23] ExtendedRequest { [0] StartTLS OID } }. */
export function encodeStartTls(messageId: number): Buffer {
  return tlv(0x30, Buffer.concat([integer(messageId), tlv(0x77, octets(START_TLS_OID, 0x80))]));
}

/** LDAPMessage { messageID, [APPLICATION 2] UnbindRequest NULL }. */
export function encodeUnbind(messageId: number): Buffer {
  return tlv(0x30, Buffer.concat([integer(messageId), Buffer.from([0x42, 0x00])]));
}

/** Skips a tag and its length; returns the offset of the content and the content's length. */
function header(frame: Buffer, offset: number): { content: number; length: number } {
  const first = frame[offset + 1]!;
  if (first < 0x80) return { content: offset + 2, length: first };
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i += 1) length = length * 256 + frame[offset + 2 + i]!;
  return { content: offset + 2 + count, length };
}

/** A response's messageID, its operation tag, and where the operation's content starts. */
export function readMessage(frame: Buffer): { messageId: number; tag: number; content: number } {
  const message = header(frame, 0);
  const id = header(frame, message.content);
  let messageId = 0;
  for (let i = 0; i < id.length; i += 1) messageId = messageId * 256 + frame[id.content + i]!;
  const opAt = id.content + id.length;
  return { messageId, tag: frame[opAt]!, content: header(frame, opAt).content };
}

/** The resultCode of an LDAPResult-shaped operation whose content starts at `content`. */
export function readCode(frame: Buffer, content: number): number {
  const code = header(frame, content);
  return frame[code.content + code.length - 1]!;
}

/** messageID and resultCode of an LDAPResult-shaped response (BindResponse and the like). */
export function readResult(frame: Buffer): { messageId: number; code: number } {
  const { messageId, content } = readMessage(frame);
  return { messageId, code: readCode(frame, content) };
}

/** The objectName of a SearchResultEntry whose content starts at `content`. */
export function readEntryDn(frame: Buffer, content: number): string {
  const name = header(frame, content);
  return frame.toString('utf8', name.content, name.content + name.length);
}
