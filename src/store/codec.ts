/**
 * The stored form of an entry: a compact binary record, so reading one for a bind is a few
 * buffer slices, and values keep their exact octets.
 *
 *   u8 format (1) | u32 dnLength | dn utf8 | u16 attributeCount |
 *   per attribute: u16 nameLength | name utf8 | u32 valueCount | per value: u32 length | bytes
 */
import type { Attribute, Entry } from './entry.js';
import { StoreError } from './errors.js';
import { namesOf } from './schema.js';
import { errorMessage } from '../errors.js';

const RECORD_FORMAT = 1;

/** Attribute names as bytes: the same few dozen names are written for every entry. */
const nameBytes = new Map<string, Buffer>();

function bytesOf(name: string): Buffer {
  let bytes = nameBytes.get(name);
  if (bytes === undefined) {
    if (nameBytes.size >= 4096) nameBytes.clear();
    bytes = Buffer.from(name, 'utf8');
    nameBytes.set(name, bytes);
  }
  return bytes;
}

function measure(dn: Buffer, entry: Entry): number {
  let size = 1 + 4 + dn.byteLength + 2;
  for (const attribute of entry.attributes) {
    size += 2 + bytesOf(attribute.name).byteLength + 4;
    for (const value of attribute.values) size += 4 + value.byteLength;
  }
  return size;
}

export function encodeEntry(entry: Entry): Buffer {
  const dn = Buffer.from(entry.dn, 'utf8');
  const buffer = Buffer.allocUnsafe(measure(dn, entry));
  let offset = buffer.writeUInt8(RECORD_FORMAT, 0);
  offset = buffer.writeUInt32BE(dn.byteLength, offset);
  buffer.set(dn, offset);
  offset = buffer.writeUInt16BE(entry.attributes.length, offset + dn.byteLength);
  for (const attribute of entry.attributes) {
    const name = bytesOf(attribute.name);
    offset = buffer.writeUInt16BE(name.byteLength, offset);
    buffer.set(name, offset);
    offset = buffer.writeUInt32BE(attribute.values.length, offset + name.byteLength);
    for (const value of attribute.values) {
      offset = buffer.writeUInt32BE(value.byteLength, offset);
      buffer.set(value, offset);
      offset += value.byteLength;
    }
  }
  return buffer;
}

class Reader {
  offset = 0;
  constructor(readonly buffer: Buffer) {}
  u8(): number { const v = this.buffer.readUInt8(this.offset); this.offset += 1; return v; }
  u16(): number { const v = this.buffer.readUInt16BE(this.offset); this.offset += 2; return v; }
  u32(): number { const v = this.buffer.readUInt32BE(this.offset); this.offset += 4; return v; }
  bytes(length: number): Buffer {
    if (this.offset + length > this.buffer.byteLength) throw new RangeError('record truncated');
    const slice = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
  text(length: number): string { return this.bytes(length).toString('utf8'); }

}

/** Attribute names as decoded from records, by a hash of their bytes: the same few dozen names are read for every entry. */
const decodedNames = new Map<number, { readonly bytes: Buffer; readonly name: string }>();
/** Longer names are decoded each time (and never kept). */
const DECODED_NAME_LIMIT = 64;

function sameBytes(known: Buffer, buffer: Buffer, start: number, length: number): boolean {
  if (known.byteLength !== length) return false;
  for (let i = 0; i < length; i += 1) if (known[i] !== buffer[start + i]) return false;
  return true;
}

/** The name at [start, start + length) of the record, decoded once per distinct name (names are compared byte for byte). */
function nameAt(buffer: Buffer, start: number, length: number): string {
  if (start + length > buffer.byteLength) throw new RangeError('record truncated');
  if (length > DECODED_NAME_LIMIT) return buffer.toString('utf8', start, start + length);
  let hash = 0x811c9dc5;
  for (let i = start; i < start + length; i += 1) hash = Math.imul(hash ^ buffer[i]!, 0x01000193);
  const known = decodedNames.get(hash);
  if (known !== undefined && sameBytes(known.bytes, buffer, start, length)) return known.name;
  const name = buffer.toString('utf8', start, start + length);
  if (decodedNames.size >= 4096) decodedNames.clear();
  decodedNames.set(hash, { bytes: Buffer.from(buffer.subarray(start, start + length)), name });
  return name;
}

function readAttribute(reader: Reader): Attribute {
  const length = reader.u16();
  const name = nameAt(reader.buffer, reader.offset, length);
  reader.offset += length;
  const count = reader.u32();
  const values: Buffer[] = [];
  for (let i = 0; i < count; i += 1) values.push(reader.bytes(reader.u32()));
  return { name, values };
}

export function decodeEntry(buffer: Buffer): Entry {
  try {
    const reader = new Reader(buffer);
    const format = reader.u8();
    if (format !== RECORD_FORMAT) throw new StoreError(`entry record format ${format} is not supported`);
    const dn = reader.text(reader.u32());
    const count = reader.u16();
    const attributes: Attribute[] = [];
    for (let i = 0; i < count; i += 1) attributes.push(readAttribute(reader));
    return { dn, attributes };
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`corrupt entry record: ${errorMessage(error)}`);
  }
}

/** The names of a type as lower-case bytes, per description asked for (a handful: userPassword). */
const patterns = new Map<string, readonly Buffer[]>();

function namePatterns(description: string): readonly Buffer[] {
  let found = patterns.get(description);
  if (found === undefined) {
    if (patterns.size >= 64) patterns.clear();
    found = namesOf(description).map((name) => Buffer.from(name, 'latin1'));
    patterns.set(description, found);
  }
  return found;
}

const SEMICOLON = 0x3b;

/** Whether the stored name at [start, start + length) is one of the patterns, with or without options, in any case. */
function nameMatches(buffer: Buffer, start: number, length: number, names: readonly Buffer[]): boolean {
  if (start + length > buffer.byteLength) throw new RangeError('record truncated');
  for (const name of names) {
    if (length < name.length || (length > name.length && buffer[start + name.length] !== SEMICOLON)) continue;
    let i = 0;
    while (i < name.length && (buffer[start + i]! | (buffer[start + i]! >= 0x41 && buffer[start + i]! <= 0x5a ? 0x20 : 0)) === name[i]) i += 1;
    if (i === name.length) return true;
  }
  return false;
}

/**
 * The values of one attribute type (any options, any alias, any case) straight from a record,
 * without decoding the rest of the entry: the bind path needs only userPassword. Names are
 * compared as bytes, never decoded.
 */
export function decodeValues(buffer: Buffer, description: string): Buffer[] {
  try {
    const wanted = namePatterns(description);
    const reader = new Reader(buffer);
    const format = reader.u8();
    if (format !== RECORD_FORMAT) throw new StoreError(`entry record format ${format} is not supported`);
    const dnLength = reader.u32();
    reader.offset += dnLength;
    const found: Buffer[] = [];
    for (let count = reader.u16(); count > 0; count -= 1) {
      const nameLength = reader.u16();
      const matches = nameMatches(buffer, reader.offset, nameLength, wanted);
      reader.offset += nameLength;
      for (let values = reader.u32(); values > 0; values -= 1) {
        const length = reader.u32();
        if (matches) found.push(reader.bytes(length));
        else reader.offset += length;
      }
    }
    if (reader.offset > buffer.byteLength) throw new RangeError('record truncated');
    return found;
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`corrupt entry record: ${errorMessage(error)}`);
  }
}
