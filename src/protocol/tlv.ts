/**
 * Byte-level BER helpers for the hot paths, which skip @ldapjs/asn1: recognising a simple
 * BindRequest, and encoding responses into one exactly-sized buffer. They follow the same rules
 * as {@link BerInput}: definite lengths of at most four length octets, integers of one to four
 * octets.
 */
import { isUtf8 } from 'node:buffer';

/** Where the content of the element found last by {@link elementEnd} starts. */
export const found = { start: 0 };

/**
 * If an element with `tag` starts at `pos` and lies within `end`: where its content ends (its
 * content starts at `found.start`). Otherwise -1.
 */
export function elementEnd(buffer: Buffer, pos: number, end: number, tag: number): number {
  if (pos + 2 > end || buffer[pos] !== tag) return -1;
  const first = buffer[pos + 1]!;
  let start = pos + 2;
  let length = first;
  if (first >= 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4 || start + count > end) return -1;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buffer[start + i]!;
    start += count;
  }
  if (start + length > end) return -1;
  found.start = start;
  return start + length;
}

/** A two's complement integer of one to four octets in buffer[start, end), else undefined. */
export function integerAt(buffer: Buffer, start: number, end: number): number | undefined {
  const size = end - start;
  if (size < 1 || size > 4) return undefined;
  let value = (buffer[start]! << 24) >> 24;
  for (let i = start + 1; i < end; i++) value = value * 256 + buffer[i]!;
  return value;
}

/** The octets that encode `length` (1 for the short form, up to 5). */
function lengthSize(length: number): number {
  if (length < 0x80) return 1;
  if (length <= 0xff) return 2;
  if (length <= 0xffff) return 3;
  if (length <= 0xffffff) return 4;
  return 5;
}

/** The size of a whole element (one-octet tag) whose content is `length` octets. */
export function elementSize(length: number): number {
  return 1 + lengthSize(length) + length;
}

/** Writes a tag and a (minimal, definite) length at `pos`; returns where the content starts. */
export function writeHeader(buffer: Buffer, pos: number, tag: number, length: number): number {
  buffer[pos++] = tag;
  if (length < 0x80) {
    buffer[pos++] = length;
    return pos;
  }
  const size = lengthSize(length) - 1;
  buffer[pos++] = 0x80 | size;
  for (let shift = (size - 1) * 8; shift >= 0; shift -= 8) buffer[pos++] = (length >>> shift) & 0xff;
  return pos;
}

/** The content octets of a minimal two's complement encoding of a non-negative int32. */
export function integerSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x8000) return 2;
  if (value < 0x800000) return 3;
  return 4;
}

/** Writes a non-negative int32 as an INTEGER element (tag `tag`); returns the position after it. */
export function writeInteger(buffer: Buffer, pos: number, tag: number, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`not an integer in 0..2^31-1: ${value}`);
  const size = integerSize(value);
  pos = writeHeader(buffer, pos, tag, size);
  for (let shift = (size - 1) * 8; shift >= 0; shift -= 8) buffer[pos++] = (value >>> shift) & 0xff;
  return pos;
}

/** Strings this short are checked, measured and copied in JavaScript (cheaper than a native call). */
const SHORT_STRING = 64;

/** buffer[start, end) as a string if it is valid UTF-8, else undefined. */
export function utf8At(buffer: Buffer, start: number, end: number): string | undefined {
  if (end - start <= SHORT_STRING && isAscii(buffer, start, end)) return buffer.toString('latin1', start, end);
  return isUtf8(buffer.subarray(start, end)) ? buffer.toString('utf8', start, end) : undefined;
}

function isAscii(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buffer[i]! >= 0x80) return false;
  return true;
}
/** Values this short are copied byte by byte (cheaper than TypedArray.set). */
const SHORT_VALUE = 16;

/** The UTF-8 byte length of `value`. */
export function stringLength(value: string): number {
  const length = value.length;
  if (length > SHORT_STRING) return Buffer.byteLength(value);
  for (let i = 0; i < length; i++) if (value.charCodeAt(i) >= 0x80) return Buffer.byteLength(value);
  return length;
}

/** Writes a string element of `length` UTF-8 bytes (from {@link stringLength}); returns the position after it. */
export function writeString(buffer: Buffer, pos: number, tag: number, value: string, length: number): number {
  pos = writeHeader(buffer, pos, tag, length);
  if (length === value.length && length <= SHORT_STRING) {
    for (let i = 0; i < length; i++) buffer[pos + i] = value.charCodeAt(i);
    return pos + length;
  }
  return pos + buffer.write(value, pos, length, 'utf8');
}

/** Writes an element whose content is `value`; returns the position after it. */
export function writeOctets(buffer: Buffer, pos: number, tag: number, value: Uint8Array): number {
  const length = value.length;
  pos = writeHeader(buffer, pos, tag, length);
  if (length <= SHORT_VALUE) {
    for (let i = 0; i < length; i++) buffer[pos + i] = value[i]!;
  } else {
    buffer.set(value, pos);
  }
  return pos + length;
}

/** Guards against a measuring mistake: the buffer must be exactly full. */
export function checked(buffer: Buffer, pos: number): Buffer {
  if (pos !== buffer.length) throw new Error(`response encoder wrote ${pos} of ${buffer.length} bytes`);
  return buffer;
}
