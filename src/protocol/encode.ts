/**
 * LDAPMessage responses (RFC 4511 section 4) as complete BER frames. Every response is measured
 * first and then written into one buffer of exactly its size: values are copied once, nothing
 * is shifted or regrown, and lengths go up to 4 GiB. (@ldapjs/asn1's BerWriter zero-fills a
 * 1 KiB buffer per message, moves each short sequence back after writing it, and refuses
 * lengths above 16 MiB; it took 1.3 µs for a bare BindResponse.)
 */
import type { Control, Result } from './types.js';
import { checked, elementSize, integerSize, stringLength, writeHeader, writeInteger, writeOctets, writeString } from './tlv.js';
import { Tag } from './tags.js';

/** The protocolOp tags of the responses that are an LDAPResult and nothing else. */
export const ResponseOp = {
  bind: 0x61,
  searchDone: 0x65,
  modify: 0x67,
  add: 0x69,
  delete: 0x6b,
  modifyDn: 0x6d,
  compare: 0x6f,
} as const;
export type ResponseOp = (typeof ResponseOp)[keyof typeof ResponseOp];

/** The unsolicited notification sent before the server closes a connection (RFC 4511 4.4.1). */
export const NOTICE_OF_DISCONNECTION_OID = '1.3.6.1.4.1.1466.20036';

/** The StartTLS extended operation (RFC 4511 4.14). */
export const START_TLS_OID = '1.3.6.1.4.1.1466.20037';


export interface EntryAttribute {
  readonly name: string;
  readonly values: readonly Buffer[];
}

/** An optional element after the LDAPResult fields (serverSaslCreds, responseName, responseValue). */
interface Extra {
  readonly tag: number;
  readonly value: Buffer;
}

const NO_EXTRAS: readonly Extra[] = [];

/** A response that is an LDAPResult and nothing else; `controls` are optional. */
export function encodeResult(messageId: number, op: ResponseOp, result: Result, controls?: readonly Control[]): Buffer {
  return encodeResponse(messageId, op, result, NO_EXTRAS, controls);
}

/** BindResponse; `controls` carries e.g. the password policy response control. */
export function encodeBindResponse(messageId: number, result: Result, serverSaslCreds?: Buffer, controls?: readonly Control[]): Buffer {
  const extras = serverSaslCreds === undefined ? NO_EXTRAS : [{ tag: Tag.ServerSaslCreds, value: serverSaslCreds }];
  return encodeResponse(messageId, ResponseOp.bind, result, extras, controls);
}

/** SearchResultDone; `controls` carries e.g. the paged results response control. */
export function encodeSearchDone(messageId: number, result: Result, controls?: readonly Control[]): Buffer {
  return encodeResponse(messageId, ResponseOp.searchDone, result, NO_EXTRAS, controls);
}

export function encodeExtendedResponse(messageId: number, result: Result, responseName?: string, responseValue?: Buffer): Buffer {
  const extras: Extra[] = [];
  if (responseName !== undefined) extras.push({ tag: Tag.ResponseName, value: Buffer.from(responseName) });
  if (responseValue !== undefined) extras.push({ tag: Tag.ResponseValue, value: responseValue });
  return encodeResponse(messageId, Tag.ExtendedResponse, result, extras);
}

/** The Notice of Disconnection: an unsolicited ExtendedResponse with message ID 0. */
export function encodeNoticeOfDisconnection(result: Result): Buffer {
  return encodeExtendedResponse(0, result, NOTICE_OF_DISCONNECTION_OID);
}

/**
 * LDAPMessage { messageID, op { resultCode ENUMERATED, matchedDN, diagnosticMessage, extras },
 * controls [0] }, with empty strings for an absent matchedDN or message.
 */
function encodeResponse(messageId: number, op: number, result: Result, extras: readonly Extra[], controls?: readonly Control[]): Buffer {
  const matchedDn = result.matchedDn ?? '';
  const message = result.message ?? '';
  const matchedDnLength = stringLength(matchedDn);
  const messageLength = stringLength(message);
  let opLength = elementSize(integerSize(result.code)) + elementSize(matchedDnLength) + elementSize(messageLength);
  for (const extra of extras) opLength += elementSize(extra.value.length);
  const controlsLength = controls === undefined || controls.length === 0 ? -1 : measureControls(controls);
  let length = elementSize(integerSize(messageId)) + elementSize(opLength);
  if (controlsLength >= 0) length += elementSize(controlsLength);
  const buffer = Buffer.allocUnsafe(elementSize(length));
  let pos = writeHeader(buffer, 0, Tag.Sequence, length);
  pos = writeInteger(buffer, pos, Tag.Integer, messageId);
  pos = writeHeader(buffer, pos, op, opLength);
  pos = writeInteger(buffer, pos, Tag.Enumerated, result.code);
  pos = writeString(buffer, pos, Tag.OctetString, matchedDn, matchedDnLength);
  pos = writeString(buffer, pos, Tag.OctetString, message, messageLength);
  for (const extra of extras) pos = writeOctets(buffer, pos, extra.tag, extra.value);
  if (controlsLength >= 0) pos = writeControls(buffer, pos, controls!, controlsLength);
  return checked(buffer, pos);
}

/** The content length of the Controls sequence. */
function measureControls(controls: readonly Control[]): number {
  let length = 0;
  for (const control of controls) length += elementSize(controlLength(control));
  return length;
}

/** Control ::= SEQUENCE { controlType, criticality BOOLEAN DEFAULT FALSE, controlValue OPTIONAL } */
function controlLength(control: Control): number {
  let length = elementSize(stringLength(control.type));
  if (control.critical) length += 3;
  if (control.value !== undefined) length += elementSize(control.value.length);
  return length;
}

function writeControls(buffer: Buffer, pos: number, controls: readonly Control[], length: number): number {
  pos = writeHeader(buffer, pos, Tag.Controls, length);
  for (const control of controls) {
    pos = writeHeader(buffer, pos, Tag.Sequence, controlLength(control));
    pos = writeString(buffer, pos, Tag.OctetString, control.type, stringLength(control.type));
    if (control.critical) {
      pos = writeHeader(buffer, pos, Tag.Boolean, 1);
      buffer[pos++] = 0xff;
    }
    if (control.value !== undefined) pos = writeOctets(buffer, pos, Tag.OctetString, control.value);
  }
  return pos;
}
