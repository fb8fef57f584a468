/**
 * The least a bind load client needs on the wire: a simple BindRequest encoded directly, and the
 * messageID and resultCode read from a BindResponse, nothing else parsed.
 */

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.byteLength), content]);
}

function integer(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest & 0xff);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}

/** LDAPMessage { messageID, [APPLICATION 0] BindRequest { version 3, name, [0] simple } }. */
export function encodeSimpleBind(messageId: number, dn: string, password: Buffer): Buffer {
  const bind = tlv(0x60, Buffer.concat([integer(3), tlv(0x04, Buffer.from(dn, 'utf8')), tlv(0x80, password)]));
  return tlv(0x30, Buffer.concat([integer(messageId), bind]));
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

/** messageID and resultCode of an LDAPResult-shaped response (BindResponse and the like). */
export function readResult(frame: Buffer): { messageId: number; code: number } {
  const message = header(frame, 0);
  const id = header(frame, message.content);
  let messageId = 0;
  for (let i = 0; i < id.length; i += 1) messageId = messageId * 256 + frame[id.content + i]!;
  const op = header(frame, id.content + id.length);
  const code = header(frame, op.content);
  return { messageId, code: frame[code.content + code.length - 1]! };
}
