/**
 * SearchResultEntry (APPLICATION 4) responses, and the same element alone for the pre-/post-read
 * controls. An entry's attributes come either as objects (EntryAttribute) or as slices of one
 * buffer (SlicedEntry: a stored record, whose bytes are copied into the answer without a Buffer
 * or a string per value). Measured first, then written into one buffer of exactly its size.
 */
import type { EntryAttribute } from './encode.js';
import { checked, elementSize, integerSize, stringLength, writeHeader, writeInteger, writeOctets, writeString } from './tlv.js';
import { Tag } from './tags.js';

/** An entry's DN and attributes as slices of one buffer (a stored record: sliceRecord in store/codec.ts). */
export interface SlicedEntry {
  readonly bytes: Buffer;
  readonly dnStart: number;
  readonly dnLength: number;
  /** In [0, partsLength), per attribute: the start and length of its name, its value count, then the start and length of each value. */
  readonly parts: ArrayLike<number>;
  readonly partsLength: number;
}

/** Slices this long or shorter are copied byte by byte (a native copy's call costs more). */
const SHORT_SLICE = 24;

/** Per attribute: the byte length of its name, of its SET's content, of its SEQUENCE's content. */
const scratch: number[] = [];

/**
 * SearchResultEntry (APPLICATION 4), called once per entry returned. For typesOnly, pass empty
 * value lists.
 */
export function encodeSearchEntry(messageId: number, dn: string, attributes: readonly EntryAttribute[]): Buffer {
  const dnLength = stringLength(dn);
  const listLength = measureAttributes(attributes);
  const entryLength = elementSize(dnLength) + elementSize(listLength);
  const length = elementSize(integerSize(messageId)) + elementSize(entryLength);
  const buffer = Buffer.allocUnsafe(elementSize(length));
  let pos = writeHeader(buffer, 0, Tag.Sequence, length);
  pos = writeInteger(buffer, pos, Tag.Integer, messageId);
  pos = writeEntry(buffer, pos, dn, dnLength, listLength, attributes);
  return checked(buffer, pos);
}

/**
 * A SearchResultEntry on its own, without the LDAPMessage around it: the value of the pre-read
 * and post-read response controls (RFC 4527).
 */
export function encodeEntryValue(dn: string, attributes: readonly EntryAttribute[]): Buffer {
  const dnLength = stringLength(dn);
  const listLength = measureAttributes(attributes);
  const buffer = Buffer.allocUnsafe(elementSize(elementSize(dnLength) + elementSize(listLength)));
  return checked(buffer, writeEntry(buffer, 0, dn, dnLength, listLength, attributes));
}

/** Writes the SearchResultEntry element (its attributes measured into `scratch` first); returns the position after it. */
function writeEntry(buffer: Buffer, pos: number, dn: string, dnLength: number, listLength: number, attributes: readonly EntryAttribute[]): number {
  pos = writeHeader(buffer, pos, Tag.SearchEntry, elementSize(dnLength) + elementSize(listLength));
  pos = writeString(buffer, pos, Tag.OctetString, dn, dnLength);
  pos = writeHeader(buffer, pos, Tag.Sequence, listLength);
  return writeAttributes(buffer, pos, attributes);
}

/** Fills `scratch`; returns the content length of the PartialAttributeList. */
function measureAttributes(attributes: readonly EntryAttribute[]): number {
  let list = 0;
  for (let i = 0; i < attributes.length; i++) {
    const { name, values } = attributes[i]!;
    const nameLength = stringLength(name);
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
    pos = writeString(buffer, pos, Tag.OctetString, name, scratch[3 * i]!);
    pos = writeHeader(buffer, pos, Tag.Set, scratch[3 * i + 1]!);
    for (let j = 0; j < values.length; j++) pos = writeOctets(buffer, pos, Tag.OctetString, values[j]!);
  }
  return pos;
}

/**
 * The SearchResultEntry of a sliced entry, `extra` (computed attributes, already emptied for
 * typesOnly) after its own attributes; with typesOnly, the sliced attributes go without values.
 */
export function encodeSlicedSearchEntry(messageId: number, entry: SlicedEntry, extra: readonly EntryAttribute[], typesOnly: boolean): Buffer {
  const listLength = measureSlices(entry, typesOnly) + measureAttributes(extra);
  const entryLength = elementSize(entry.dnLength) + elementSize(listLength);
  const length = elementSize(integerSize(messageId)) + elementSize(entryLength);
  const buffer = Buffer.allocUnsafe(elementSize(length));
  let pos = writeHeader(buffer, 0, Tag.Sequence, length);
  pos = writeInteger(buffer, pos, Tag.Integer, messageId);
  pos = writeHeader(buffer, pos, Tag.SearchEntry, entryLength);
  pos = writeHeader(buffer, pos, Tag.OctetString, entry.dnLength);
  pos = copySlice(entry.bytes, entry.dnStart, entry.dnLength, buffer, pos);
  pos = writeHeader(buffer, pos, Tag.Sequence, listLength);
  pos = writeSlices(buffer, pos, entry, typesOnly);
  if (sliceSizes.length > SIZES_KEPT) sliceSizes = new Int32Array(64);
  return checked(buffer, writeAttributes(buffer, pos, extra));
}

/** Per sliced attribute: its SET's content length and its SEQUENCE's, measured before writing (this thread's); grown past SIZES_KEPT, let go after use. */
let sliceSizes: Int32Array = new Int32Array(64);
const SIZES_KEPT = 4096;

/** Fills `sliceSizes`; returns the sliced attributes' share of the list's length. */
function measureSlices({ parts, partsLength }: SlicedEntry, typesOnly: boolean): number {
  let list = 0;
  for (let i = 0, n = 0; i < partsLength; i += 3 + 2 * parts[i + 2]!, n += 2) {
    const count = parts[i + 2]!;
    let setLength = 0;
    if (!typesOnly) for (let j = 0; j < count; j++) setLength += elementSize(parts[i + 4 + 2 * j]!);
    const attributeLength = elementSize(parts[i + 1]!) + elementSize(setLength);
    if (n + 2 > sliceSizes.length) sliceSizes = grown(sliceSizes);
    sliceSizes[n] = setLength;
    sliceSizes[n + 1] = attributeLength;
    list += elementSize(attributeLength);
  }
  return list;
}

function grown(sizes: Int32Array): Int32Array {
  const larger = new Int32Array(2 * sizes.length);
  larger.set(sizes);
  return larger;
}

function writeSlices(buffer: Buffer, pos: number, { bytes, parts, partsLength }: SlicedEntry, typesOnly: boolean): number {
  for (let i = 0, n = 0; i < partsLength; n += 2) {
    const count = parts[i + 2]!;
    pos = writeHeader(buffer, pos, Tag.Sequence, sliceSizes[n + 1]!);
    pos = writeHeader(buffer, pos, Tag.OctetString, parts[i + 1]!);
    pos = copySlice(bytes, parts[i]!, parts[i + 1]!, buffer, pos);
    pos = writeHeader(buffer, pos, Tag.Set, sliceSizes[n]!);
    for (let j = 0; j < count && !typesOnly; j++) {
      const start = parts[i + 3 + 2 * j]!;
      const length = parts[i + 4 + 2 * j]!;
      pos = copySlice(bytes, start, length, buffer, writeHeader(buffer, pos, Tag.OctetString, length));
    }
    i += 3 + 2 * count;
  }
  return pos;
}

/** Copies bytes[start, start + length) to buffer at pos; returns the position after it. */
function copySlice(bytes: Buffer, start: number, length: number, buffer: Buffer, pos: number): number {
  if (length <= SHORT_SLICE) {
    for (let i = 0; i < length; i++) buffer[pos + i] = bytes[start + i]!;
  } else {
    bytes.copy(buffer, pos, start, start + length);
  }
  return pos + length;
}
