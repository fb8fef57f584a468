/**
 * LDAPMessage responses (RFC 4511 section 4) as complete BER frames. Results go through
 * @ldapjs/asn1's BerWriter; search entries, the bulk of the traffic, are written by hand into
 * one buffer of exactly the right size (values copied once, lengths up to 4 GiB).
 */
import asn1 from '@ldapjs/asn1';
import type { Control, Result } from './types.js';
import { elementSize, integerSize, writeHeader, writeInteger } from './tlv.js';

/** The protocolOp tags of the responses that are just an LDAPResult. */
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

const Tag = {
  Integer: 0x02,
  OctetString: 0x04,
  Boolean: 0x01,
  Sequence: 0x30,
  Set: 0x31,
  Controls: 0xa0,
  SearchEntry: 0x64,
  Extended: 0x78,
  ServerSaslCreds: 0x87,
  ResponseName: 0x8a,
  ResponseValue: 0x8b,
} as const;

type Writer = asn1.BerWriter;

export interface EntryAttribute {
  readonly name: string;
  readonly values: readonly Buffer[];
}

/** A response that is an LDAPResult and nothing else (BindResponse without SASL credentials, ...). */
export function encodeResult(messageId: number, op: ResponseOp, result: Result, controls?: readonly Control[]): Buffer {
  return encodeMessage(messageId, resultSize(result), controls, (writer) => {
    writer.startSequence(op);
    writeResult(writer, result);
    writer.endSequence();
  });
}

export function encodeBindResponse(messageId: number, result: Result, serverSaslCreds?: Buffer): Buffer {
  if (serverSaslCreds === undefined) return encodeResult(messageId, ResponseOp.bind, result);
  return encodeMessage(messageId, resultSize(result) + serverSaslCreds.length, undefined, (writer) => {
    writer.startSequence(ResponseOp.bind);
    writeResult(writer, result);
    writer.writeBuffer(serverSaslCreds, Tag.ServerSaslCreds);
    writer.endSequence();
  });
}

/** SearchResultDone; `controls` carries e.g. the paged results response control. */
export function encodeSearchDone(messageId: number, result: Result, controls?: readonly Control[]): Buffer {
  return encodeResult(messageId, ResponseOp.searchDone, result, controls);
}

export function encodeExtendedResponse(messageId: number, result: Result, responseName?: string, responseValue?: Buffer): Buffer {
  const size = resultSize(result) + 3 * (responseName?.length ?? 0) + (responseValue?.length ?? 0);
  return encodeMessage(messageId, size, undefined, (writer) => {
    writer.startSequence(Tag.Extended);
    writeResult(writer, result);
    if (responseName !== undefined) writer.writeString(responseName, Tag.ResponseName);
    if (responseValue !== undefined) writer.writeBuffer(responseValue, Tag.ResponseValue);
    writer.endSequence();
  });
}

/** The Notice of Disconnection: an unsolicited ExtendedResponse with message ID 0. */
export function encodeNoticeOfDisconnection(result: Result): Buffer {
  return encodeExtendedResponse(0, result, NOTICE_OF_DISCONNECTION_OID);
}

function encodeMessage(messageId: number, size: number, controls: readonly Control[] | undefined, writeOp: (writer: Writer) => void): Buffer {
  const writer = new asn1.BerWriter({ size: size + controlsSize(controls) });
  writer.startSequence(Tag.Sequence);
  writer.writeInt(messageId);
  writeOp(writer);
  if (controls !== undefined && controls.length > 0) writeControls(writer, controls);
  writer.endSequence();
  return writer.buffer;
}

/** LDAPResult: resultCode ENUMERATED, matchedDN, diagnosticMessage (empty when absent). */
function writeResult(writer: Writer, result: Result): void {
  writer.writeEnumeration(result.code);
  writer.writeString(result.matchedDn ?? '');
  writer.writeString(result.message ?? '');
}

function writeControls(writer: Writer, controls: readonly Control[]): void {
  writer.startSequence(Tag.Controls);
  for (const control of controls) {
    writer.startSequence(Tag.Sequence);
    writer.writeString(control.type);
    if (control.critical) writer.writeBoolean(true);
    if (control.value !== undefined) writer.writeBuffer(control.value, Tag.OctetString);
    writer.endSequence();
  }
  writer.endSequence();
}

/** A generous estimate of an encoded message's size, so the writer does not have to grow. */
function resultSize(result: Result): number {
  return 48 + 3 * ((result.matchedDn?.length ?? 0) + (result.message?.length ?? 0));
}

function controlsSize(controls: readonly Control[] | undefined): number {
  let size = 0;
  for (const control of controls ?? []) size += 16 + control.type.length + (control.value?.length ?? 0);
  return size;
}

/** Per attribute: the byte length of its name, of its SET's content, of its SEQUENCE's content. */
const scratch: number[] = [];

/**
 * SearchResultEntry (APPLICATION 4). For typesOnly, pass empty value lists. The values are
 * copied once, into a buffer sized exactly beforehand.
 */
export function encodeSearchEntry(messageId: number, dn: string, attributes: readonly EntryAttribute[]): Buffer {
  const dnLength = Buffer.byteLength(dn);
  const listLength = measureAttributes(attributes);
  const entryLength = elementSize(dnLength) + elementSize(listLength);
  const messageLength = elementSize(integerSize(messageId)) + elementSize(entryLength);
  const buffer = Buffer.allocUnsafe(elementSize(messageLength));
  let pos = writeHeader(buffer, 0, Tag.Sequence, messageLength);
  pos = writeInteger(buffer, pos, Tag.Integer, messageId);
  pos = writeHeader(buffer, pos, Tag.SearchEntry, entryLength);
  pos = writeString(buffer, pos, dn, dnLength);
  pos = writeHeader(buffer, pos, Tag.Sequence, listLength);
  pos = writeAttributes(buffer, pos, attributes);
  if (pos !== buffer.length) throw new Error(`encodeSearchEntry: wrote ${pos} of ${buffer.length} bytes`);
  return buffer;
}

/** Fills `scratch`; returns the content length of the PartialAttributeList. */
function measureAttributes(attributes: readonly EntryAttribute[]): number {
  let list = 0;
  for (let i = 0; i < attributes.length; i++) {
    const { name, values } = attributes[i]!;
    const nameLength = Buffer.byteLength(name);
    let setLength = 0;
    for (let j = 0; j < values.length; j++) setLength += elementSize(values[j]!.length);
    const attributeLength = elementSize(nameLength) + elementSize(setLength);
    scratch[3 * i] = nameLength;
    scratch[3 * i + 1] = setLength;
    scratch[3 * i + 2] = attributeLength;
    list += elementSize(attributeLength);
  }
  return list;
}

function writeAttributes(buffer: Buffer, pos: number, attributes: readonly EntryAttribute[]): number {
  for (let i = 0; i < attributes.length; i++) {
    const { name, values } = attributes[i]!;
    pos = writeHeader(buffer, pos, Tag.Sequence, scratch[3 * i + 2]!);
    pos = writeString(buffer, pos, name, scratch[3 * i]!);
    pos = writeHeader(buffer, pos, Tag.Set, scratch[3 * i + 1]!);
    for (let j = 0; j < values.length; j++) {
      const value = values[j]!;
      pos = writeHeader(buffer, pos, Tag.OctetString, value.length);
      buffer.set(value, pos);
      pos += value.length;
    }
  }
  return pos;
}

function writeString(buffer: Buffer, pos: number, value: string, length: number): number {
  pos = writeHeader(buffer, pos, Tag.OctetString, length);
  return pos + buffer.write(value, pos, length, 'utf8');
}
