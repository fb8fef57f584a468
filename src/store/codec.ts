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
import type { SlicedEntry } from '../protocol/encode-entry.js';

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
  let size = 1 + 4 + dn.length + 2;
  for (const attribute of entry.attributes) {
    size += 2 + bytesOf(attribute.name).length + 4;
    for (const value of attribute.values) size += 4 + value.length;
  }
  return size;
}

export function encodeEntry(entry: Entry): Buffer {
  const dn = Buffer.from(entry.dn, 'utf8');
  const buffer = Buffer.allocUnsafe(measure(dn, entry));
  let offset = buffer.writeUInt8(RECORD_FORMAT, 0);
  offset = buffer.writeUInt32BE(dn.length, offset);
  buffer.set(dn, offset);
  offset = buffer.writeUInt16BE(entry.attributes.length, offset + dn.length);
  for (const attribute of entry.attributes) {
    const name = bytesOf(attribute.name);
    offset = buffer.writeUInt16BE(name.length, offset);
    buffer.set(name, offset);
    offset = buffer.writeUInt32BE(attribute.values.length, offset + name.length);
    for (const value of attribute.values) {
      offset = buffer.writeUInt32BE(value.length, offset);
      buffer.set(value, offset);
      offset += value.length;
    }
  }
  return buffer;
}

const truncated = (): RangeError => new RangeError('record truncated');

// Bounds are read as `buffer.length` (the same as byteLength for a Buffer): measured, decoding a
// 25-attribute record took 1.5-2x as long with byteLength.

/** The big-endian u16 at `offset` (bytes read straight: readUInt16BE's call and checks cost more here). */
function u16At(buffer: Buffer, offset: number): number {
  if (offset + 2 > buffer.length) throw truncated();
  return (buffer[offset]! << 8) | buffer[offset + 1]!;
}

function u32At(buffer: Buffer, offset: number): number {
  if (offset + 4 > buffer.length) throw truncated();
  return buffer[offset]! * 0x1000000 + ((buffer[offset + 1]! << 16) | (buffer[offset + 2]! << 8) | buffer[offset + 3]!);
}

/**
 * Views of a record's bytes, no copies (values keep the record alive): its memory and offset read
 * once per record, not once per value.
 */
class Views {
  private readonly memory: ArrayBufferLike;
  private readonly base: number;
  private readonly end: number;

  constructor(buffer: Buffer) {
    this.memory = buffer.buffer;
    this.base = buffer.byteOffset;
    this.end = buffer.length;
  }

  /** The bytes at [start, start + length). */
  at(start: number, length: number): Buffer {
    if (start + length > this.end) throw truncated();
    return Buffer.from(this.memory, this.base + start, length);
  }
}

/** The offset after the format byte, which must be RECORD_FORMAT. */
function afterFormat(buffer: Buffer): number {
  const format = buffer[0];
  if (format !== RECORD_FORMAT) throw new StoreError(`entry record format ${format} is not supported`);
  return 1;
}

interface KnownName {
  readonly bytes: Buffer;
  readonly name: string;
}

/** Attribute names as decoded from records, by a hash of their bytes: the same few dozen names are read for every entry. */
const decodedNames = new Map<number, KnownName>();
/** The names of the records decoded last, by position: entries of one kind list the same names in the same order. */
const namesByPosition: (KnownName | undefined)[] = [];
/** Longer names are decoded each time (and never kept). */
const DECODED_NAME_LIMIT = 64;
/** Positions remembered, at most. */
const POSITIONS = 256;

function sameBytes(known: Buffer, buffer: Buffer, start: number, length: number): boolean {
  if (known.length !== length) return false;
  for (let i = 0; i < length; i += 1) if (known[i] !== buffer[start + i]) return false;
  return true;
}

/** The name known for these bytes, by their hash, kept on first sight. */
function knownName(buffer: Buffer, start: number, length: number): KnownName {
  let hash = 0x811c9dc5;
  for (let i = start; i < start + length; i += 1) hash = Math.imul(hash ^ buffer[i]!, 0x01000193);
  const known = decodedNames.get(hash);
  if (known !== undefined && sameBytes(known.bytes, buffer, start, length)) return known;
  const fresh = { bytes: Buffer.from(buffer.subarray(start, start + length)), name: buffer.toString('utf8', start, start + length) };
  if (decodedNames.size >= 4096) decodedNames.clear();
  decodedNames.set(hash, fresh);
  return fresh;
}

/**
 * The name at [start, start + length) of the record, the `position`th of its entry, decoded once
 * per distinct name (names are compared byte for byte): first against the name at the same
 * position of the records before, then by hash.
 */
function nameAt(buffer: Buffer, start: number, length: number, position: number): string {
  if (start + length > buffer.length) throw truncated();
  if (length > DECODED_NAME_LIMIT) return buffer.toString('utf8', start, start + length);
  const previous = namesByPosition[position];
  if (previous !== undefined && sameBytes(previous.bytes, buffer, start, length)) return previous.name;
  const known = knownName(buffer, start, length);
  if (position < POSITIONS) namesByPosition[position] = known;
  return known.name;
}

/** Whether an attribute of this name is decoded (every one when there is no such test). */
export type KeepName = (name: string) => boolean;

/**
 * Keeps no attribute: the DN alone is read, the attributes not walked at all (a search whose
 * filter reads only memberOf, which no record holds, or that sends none: `1.1`).
 */
export const KEEP_NONE: KeepName = () => false;

/** The offset after the record's values of the attribute whose value count is at `offset`. */
function skipValues(buffer: Buffer, offset: number): number {
  const valueCount = u32At(buffer, offset);
  offset += 4;
  for (let i = 0; i < valueCount; i += 1) offset += 4 + u32At(buffer, offset);
  return offset;
}

function decodeRecord(buffer: Buffer, keep: KeepName | undefined): Entry {
  let offset = afterFormat(buffer);
  const dnLength = u32At(buffer, offset);
  offset += 4;
  if (offset + dnLength > buffer.length) throw truncated();
  const dn = buffer.toString('utf8', offset, offset + dnLength);
  offset += dnLength;
  const count = u16At(buffer, offset);
  offset += 2;
  const attributes: Attribute[] = [];
  const views = new Views(buffer);
  for (let position = 0; position < count; position += 1) {
    const nameLength = u16At(buffer, offset);
    const name = nameAt(buffer, offset + 2, nameLength, position);
    offset += 2 + nameLength;
    if (keep !== undefined && !keep(name)) {
      offset = skipValues(buffer, offset);
      continue;
    }
    const valueCount = u32At(buffer, offset);
    offset += 4;
    const values: Buffer[] = [];
    for (let i = 0; i < valueCount; i += 1) {
      const length = u32At(buffer, offset);
      values.push(views.at(offset + 4, length));
      offset += 4 + length;
    }
    attributes.push({ name, values });
  }
  if (offset > buffer.length) throw truncated();
  return { dn, attributes };
}

/** A fault met reading a record, as the store reports it. */
function corrupt(error: unknown): StoreError {
  return error instanceof StoreError ? error : new StoreError(`corrupt entry record: ${errorMessage(error)}`);
}

/** The entry of a record; with `keep`, only the attributes whose names it accepts (a search's filter reads a few). */
export function decodeEntry(buffer: Buffer, keep?: KeepName): Entry {
  if (keep === KEEP_NONE) return { dn: recordDn(buffer), attributes: [] };
  try {
    return decodeRecord(buffer, keep);
  } catch (error) {
    throw corrupt(error);
  }
}

/** The DN of a record, as written. */
export function recordDn(buffer: Buffer): string {
  try {
    const dnLength = u32At(buffer, afterFormat(buffer));
    if (5 + dnLength > buffer.length) throw truncated();
    return buffer.toString('utf8', 5, 5 + dnLength);
  } catch (error) {
    throw corrupt(error);
  }
}

/** Room for the parts of a record of some 60 values; a scratch grown past PARTS_KEPT is let go after use. */
const PARTS_INITIAL = 256;
const PARTS_KEPT = 65_536;

/**
 * The parts of the record sliced last (this thread's): a one-entry search sliced into a fresh
 * array allocated more than the rest of its answer (measured: 2.4 of 26.7 KB a search).
 */
let partsScratch: Int32Array = new Int32Array(PARTS_INITIAL);

/**
 * Where a record's DN and the attributes whose names `keep` accepts lie in its bytes, in the
 * record's order (SlicedEntry: the encoder copies them into an answer without a Buffer or a string
 * per value). `parts` is this thread's scratch: read it before slicing another record (the search
 * handler encodes the answer at once).
 */
export function sliceRecord(buffer: Buffer, keep: KeepName): SlicedEntry {
  if (partsScratch.length > PARTS_KEPT) partsScratch = new Int32Array(PARTS_INITIAL);
  try {
    return slices(buffer, keep);
  } catch (error) {
    throw corrupt(error);
  }
}

/** The scratch with room for `more` parts after the first `used`. */
function room(used: number, more: number): Int32Array {
  if (used + more > partsScratch.length) {
    const grown = new Int32Array(Math.max(2 * partsScratch.length, used + more));
    grown.set(partsScratch.subarray(0, used));
    partsScratch = grown;
  }
  return partsScratch;
}

function slices(buffer: Buffer, keep: KeepName): SlicedEntry {
  let offset = afterFormat(buffer);
  const dnLength = u32At(buffer, offset);
  const dnStart = offset + 4;
  if (dnStart + dnLength > buffer.length) throw truncated();
  if (keep === KEEP_NONE) return { bytes: buffer, dnStart, dnLength, parts: partsScratch, partsLength: 0 };
  offset = dnStart + dnLength;
  const count = u16At(buffer, offset);
  offset += 2;
  let used = 0;
  for (let position = 0; position < count; position += 1) {
    const nameLength = u16At(buffer, offset);
    const nameStart = offset + 2;
    offset = nameStart + nameLength;
    if (!keep(nameAt(buffer, nameStart, nameLength, position))) {
      offset = skipValues(buffer, offset);
      continue;
    }
    const valueCount = u32At(buffer, offset);
    offset += 4;
    let parts = room(used, 3);
    parts[used++] = nameStart;
    parts[used++] = nameLength;
    parts[used++] = valueCount;
    for (let i = 0; i < valueCount; i += 1) {
      const length = u32At(buffer, offset);
      parts = room(used, 2);
      parts[used++] = offset + 4;
      parts[used++] = length;
      offset += 4 + length;
    }
  }
  if (offset > buffer.length) throw truncated();
  return { bytes: buffer, dnStart, dnLength, parts: partsScratch, partsLength: used };
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
  if (start + length > buffer.length) throw new RangeError('record truncated');
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
    let offset = afterFormat(buffer);
    offset += 4 + u32At(buffer, offset);
    const count = u16At(buffer, offset);
    offset += 2;
    const found: Buffer[] = [];
    const views = new Views(buffer);
    for (let position = 0; position < count; position += 1) {
      const nameLength = u16At(buffer, offset);
      const matches = nameMatches(buffer, offset + 2, nameLength, wanted);
      offset += 2 + nameLength;
      const valueCount = u32At(buffer, offset);
      offset += 4;
      for (let i = 0; i < valueCount; i += 1) {
        const length = u32At(buffer, offset);
        if (matches) found.push(views.at(offset + 4, length));
        offset += 4 + length;
      }
    }
    if (offset > buffer.length) throw truncated();
    return found;
  } catch (error) {
    throw corrupt(error);
  }
}
