/**
 * Write requests for raw-socket tests, encoded with @ldapjs/asn1's BerWriter (independent of the
 * server's codec): bind, add, modify (with increment, which @ldapjs/change cannot express),
 * delete, and Password Modify; controls added to any of them; and a wait for the response to
 * one message ID.
 */
import { createRequire } from 'node:module';
import type { RawConnection, Response } from './ldap-client.js';

interface Writer {
  readonly buffer: Buffer;
  startSequence(tag?: number): void;
  endSequence(): void;
  writeInt(value: number, tag?: number): void;
  writeEnumeration(value: number, tag?: number): void;
  writeBoolean(value: boolean, tag?: number): void;
  writeString(value: string, tag?: number): void;
  writeBuffer(value: Buffer, tag: number): void;
  appendBuffer(value: Buffer): void;
}
const require = createRequire(import.meta.url);
const { BerWriter, BerReader } = require('@ldapjs/asn1') as { BerWriter: new () => Writer; BerReader: new (buffer: Buffer) => unknown };
const messages = require('@ldapjs/messages') as {
  LdapMessage: { parse(reader: unknown): { type: string; objectName: { toString(): string }; attributes: { type: string; values: string[] }[] } };
};

const OCTET_STRING = 0x04;
const CHANGE_OPS = { add: 0, delete: 1, replace: 2, increment: 3 } as const;

export interface ChangeSpec {
  readonly op: keyof typeof CHANGE_OPS;
  readonly attribute: string;
  readonly values?: readonly (string | Buffer)[];
}

const bytes = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);

function message(messageId: number, writeOp: (writer: Writer) => void): Buffer {
  const writer = new BerWriter();
  writer.startSequence(0x30);
  writer.writeInt(messageId);
  writeOp(writer);
  writer.endSequence();
  return Buffer.from(writer.buffer);
}

function writeAttribute(writer: Writer, name: string | Buffer, values: readonly (string | Buffer)[]): void {
  writer.startSequence(0x30);
  writer.writeBuffer(bytes(name), OCTET_STRING);
  writer.startSequence(0x31);
  for (const value of values) writer.writeBuffer(bytes(value), OCTET_STRING);
  writer.endSequence();
  writer.endSequence();
}

export interface ControlSpec {
  readonly type: string;
  readonly critical?: boolean;
  readonly value?: Buffer;
}

/** The same LDAPMessage with these controls ([0] Controls) after its protocolOp. */
export function withControls(frame: Buffer, controls: readonly ControlSpec[]): Buffer {
  const first = frame[1]!;
  const contentStart = first < 0x80 ? 2 : 2 + (first & 0x7f);
  const writer = new BerWriter();
  writer.startSequence(0x30);
  writer.appendBuffer(frame.subarray(contentStart));
  writer.startSequence(0xa0);
  for (const control of controls) {
    writer.startSequence(0x30);
    writer.writeString(control.type);
    if (control.critical) writer.writeBoolean(true);
    if (control.value !== undefined) writer.writeBuffer(control.value, OCTET_STRING);
    writer.endSequence();
  }
  writer.endSequence();
  writer.endSequence();
  return Buffer.from(writer.buffer);
}

export function bindRequest(messageId: number, dn: string, password: string): Buffer {
  return message(messageId, (writer) => {
    writer.startSequence(0x60);
    writer.writeInt(3);
    writer.writeString(dn);
    writer.writeBuffer(Buffer.from(password), 0x80);
    writer.endSequence();
  });
}

export function modifyRequest(messageId: number, dn: string | Buffer, changes: readonly ChangeSpec[]): Buffer {
  return message(messageId, (writer) => {
    writer.startSequence(0x66);
    writer.writeBuffer(bytes(dn), OCTET_STRING);
    writer.startSequence(0x30);
    for (const change of changes) {
      writer.startSequence(0x30);
      writer.writeEnumeration(CHANGE_OPS[change.op]);
      writeAttribute(writer, change.attribute, change.values ?? []);
      writer.endSequence();
    }
    writer.endSequence();
    writer.endSequence();
  });
}

/** An AddRequest; attributes as [name, values] pairs so names may repeat or be odd bytes. */
export function addRequest(messageId: number, dn: string | Buffer, attributes: readonly (readonly [string | Buffer, readonly (string | Buffer)[]])[]): Buffer {
  return message(messageId, (writer) => {
    writer.startSequence(0x68);
    writer.writeBuffer(bytes(dn), OCTET_STRING);
    writer.startSequence(0x30);
    for (const [name, values] of attributes) writeAttribute(writer, name, values);
    writer.endSequence();
    writer.endSequence();
  });
}

export function abandonRequest(messageId: number, abandonId: number): Buffer {
  return message(messageId, (writer) => writer.writeInt(abandonId, 0x50));
}

export function deleteRequest(messageId: number, dn: string | Buffer): Buffer {
  return message(messageId, (writer) => writer.writeBuffer(bytes(dn), 0x4a));
}

export function modifyDnRequest(messageId: number, dn: string, newRdn: string, deleteOldRdn: boolean, newSuperior?: string): Buffer {
  return message(messageId, (writer) => {
    writer.startSequence(0x6c);
    writer.writeString(dn);
    writer.writeString(newRdn);
    writer.writeBoolean(deleteOldRdn);
    if (newSuperior !== undefined) writer.writeBuffer(Buffer.from(newSuperior), 0x80);
    writer.endSequence();
  });
}

export const PASSWORD_MODIFY = '1.3.6.1.4.1.4203.1.11.1';

/** An ExtendedRequest; `value` as raw bytes (undefined: no requestValue). */
export function extendedRequest(messageId: number, oid: string, value?: Buffer): Buffer {
  return message(messageId, (writer) => {
    writer.startSequence(0x77);
    writer.writeBuffer(Buffer.from(oid), 0x80);
    if (value !== undefined) writer.writeBuffer(value, 0x81);
    writer.endSequence();
  });
}

/** RFC 3062 PasswdModifyRequestValue. */
export function passwordModifyValue(fields: { userIdentity?: string; oldPassword?: string; newPassword?: string }): Buffer {
  const writer = new BerWriter();
  writer.startSequence(0x30);
  if (fields.userIdentity !== undefined) writer.writeBuffer(Buffer.from(fields.userIdentity), 0x80);
  if (fields.oldPassword !== undefined) writer.writeBuffer(Buffer.from(fields.oldPassword), 0x81);
  if (fields.newPassword !== undefined) writer.writeBuffer(Buffer.from(fields.newPassword), 0x82);
  writer.endSequence();
  return Buffer.from(writer.buffer);
}

/** The final response to `messageId` once it arrived; undefined if the connection closed or `timeoutMs` passed first. */
export async function answer(connection: RawConnection, messageId: number, timeoutMs = 30_000): Promise<Response | undefined> {
  const find = () => connection.responses.find((response) => response.messageId === messageId && response.code !== undefined);
  await connection.until(() => find() !== undefined || connection.closed, timeoutMs);
  return find();
}

/** Sends one request and waits for its answer; throws if none comes. */
export async function exchange(connection: RawConnection, messageId: number, frame: Buffer): Promise<Response> {
  connection.write(frame);
  const response = await answer(connection, messageId);
  if (!response) throw new Error(`no answer to message ${messageId}${connection.closed ? ' (connection closed)' : ''}`);
  return response;
}

/** Filters for {@link searchRequest}, encoded with BerWriter (RFC 4511 4.5.1.7). */
export type FilterSpec =
  | { readonly present: string }
  | { readonly equality: readonly [string, string] }
  | { readonly contains: readonly [string, string] }
  | { readonly or: readonly FilterSpec[] }
  | { readonly and: readonly FilterSpec[] };

function writeFilter(writer: Writer, filter: FilterSpec): void {
  if ('present' in filter) writer.writeBuffer(Buffer.from(filter.present), 0x87);
  else if ('equality' in filter) {
    writer.startSequence(0xa3);
    writer.writeString(filter.equality[0]);
    writer.writeString(filter.equality[1]);
    writer.endSequence();
  } else if ('contains' in filter) {
    writer.startSequence(0xa4);
    writer.writeString(filter.contains[0]);
    writer.startSequence(0x30);
    writer.writeBuffer(Buffer.from(filter.contains[1]), 0x81);
    writer.endSequence();
    writer.endSequence();
  } else {
    writer.startSequence('or' in filter ? 0xa1 : 0xa0);
    for (const item of 'or' in filter ? filter.or : filter.and) writeFilter(writer, item);
    writer.endSequence();
  }
}

const SCOPES = { base: 0, one: 1, sub: 2 } as const;

/** A SearchRequest (derefAliases never, no limits unless given), attributes `1.1` unless given; a scope may be given as its number (out of range too). */
export function searchRequest(messageId: number, base: string, options: {
  readonly scope?: keyof typeof SCOPES | number; readonly filter?: FilterSpec; readonly attributes?: readonly string[];
  readonly sizeLimit?: number; readonly timeLimit?: number; readonly derefAliases?: number;
} = {}): Buffer {
  const scope = options.scope ?? 'sub';
  return message(messageId, (writer) => {
    writer.startSequence(0x63);
    writer.writeString(base);
    writer.writeEnumeration(typeof scope === 'number' ? scope : SCOPES[scope]);
    writer.writeEnumeration(options.derefAliases ?? 0);
    writer.writeInt(options.sizeLimit ?? 0);
    writer.writeInt(options.timeLimit ?? 0);
    writer.writeBoolean(false);
    writeFilter(writer, options.filter ?? { present: 'objectClass' });
    writer.startSequence(0x30);
    for (const attribute of options.attributes ?? ['1.1']) writer.writeString(attribute);
    writer.endSequence();
    writer.endSequence();
  });
}

/**
 * A SearchResultEntry value (as pre-read and post-read controls carry one), read by ldapjs: its
 * DN and attributes. Wrapped in an LDAPMessage by hand first, since ldapjs parses whole messages.
 */
export function readEntryValue(value: Buffer): { dn: string; attributes: Record<string, string[]> } {
  const writer = new BerWriter();
  writer.startSequence(0x30);
  writer.writeInt(1);
  writer.appendBuffer(value);
  writer.endSequence();
  const parsed = messages.LdapMessage.parse(new BerReader(Buffer.from(writer.buffer)));
  if (parsed.type !== 'SearchResultEntry') throw new Error(`expected a SearchResultEntry, not ${parsed.type}`);
  return { dn: parsed.objectName.toString(), attributes: Object.fromEntries(parsed.attributes.map((attribute) => [attribute.type, attribute.values])) };
}
