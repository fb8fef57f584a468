/**
 * A bounds-checked cursor over one BER element, built on @ldapjs/asn1's BerReader. The library
 * reads tags and lengths; this class adds what it leaves out: every element must lie inside the
 * constructed element that holds it, constructed elements must be read to their exact end,
 * integers and booleans must have sane sizes, and strings must be valid UTF-8. Library errors
 * (plain Errors, TypeErrors on a short buffer) are turned into ProtocolError by
 * {@link asProtocolError} at the public entry points.
 */
import asn1 from '@ldapjs/asn1';
import { errorMessage } from '../errors.js';
import { ProtocolError } from './errors.js';
import { utf8At } from './tlv.js';

export class BerInput {
  readonly #reader: asn1.BerReader;
  readonly #size: number;
  /** The end of the constructed element being read (or of the whole buffer). */
  #end: number;

  constructor(buffer: Buffer) {
    this.#reader = new asn1.BerReader(buffer);
    this.#size = buffer.length;
    this.#end = buffer.length;
  }

  /** The tag of the next element inside the current constructed element; undefined at its end. */
  peek(): number | undefined {
    if (this.#reader.offset >= this.#end) return undefined;
    return this.#reader.peek() ?? undefined;
  }

  /** Enters a constructed element; pass the returned value to {@link leave} when done with it. */
  enter(tag: number, what: string): number {
    this.#expect(tag, what);
    if (this.#reader.readSequence(tag) === null) throw new ProtocolError(`${what}: truncated`);
    const outer = this.#end;
    this.#end = this.#contentEnd(what);
    return outer;
  }

  /** Leaves the constructed element entered last; it must have been read to its end. */
  leave(outer: number, what: string): void {
    if (this.#reader.offset !== this.#end) throw new ProtocolError(`${what}: unexpected data at its end`);
    this.#end = outer;
  }

  /** A constructed element (SEQUENCE OF, SET OF) read to its end, one `item` after another. */
  list<T>(tag: number, what: string, item: () => T): T[] {
    const outer = this.enter(tag, what);
    const items: T[] = [];
    while (this.peek() !== undefined) items.push(item());
    this.leave(outer, what);
    return items;
  }

  /** Checks that the whole buffer was read. */
  finish(what: string): void {
    if (this.#end !== this.#size || this.#reader.offset !== this.#size) {
      throw new ProtocolError(`${what}: unexpected data after it`);
    }
  }

  /** Steps over the next element, primitive or constructed, without reading its content. */
  skip(tag: number, what: string): void {
    this.#expect(tag, what);
    if (this.#reader.readSequence(tag) === null) throw new ProtocolError(`${what}: truncated`);
    this.#reader.setOffset(this.#contentEnd(what));
  }

  /** The content octets of the next (primitive) element: a view, not a copy. */
  octets(tag: number, what: string): Buffer {
    this.#expect(tag, what);
    const content = this.#reader.readTag(tag);
    if (content === null) throw new ProtocolError(`${what}: truncated`);
    const end = this.#contentEnd(what);
    this.#reader.setOffset(end);
    return content;
  }

  /** The next element's content as a UTF-8 string. */
  string(tag: number, what: string): string {
    return utf8(this.octets(tag, what), what);
  }

  /** The next element's content as an integer of one to four octets (two's complement). */
  integer(tag: number, what: string): number {
    return integerValue(this.octets(tag, what), what);
  }

  /** An integer that must lie in 0 .. 2^31-1 (maxInt in RFC 4511). */
  count(tag: number, what: string): number {
    const value = this.integer(tag, what);
    if (value < 0) throw new ProtocolError(`${what}: negative`);
    return value;
  }

  boolean(tag: number, what: string): boolean {
    const content = this.octets(tag, what);
    if (content.length !== 1) throw new ProtocolError(`${what}: a boolean must be one octet`);
    return content[0] !== 0;
  }

  #expect(tag: number, what: string): void {
    const found = this.peek();
    if (found === undefined) throw new ProtocolError(`${what}: missing`);
    if (found !== tag) throw new ProtocolError(`${what}: expected tag 0x${hex(tag)}, got 0x${hex(found)}`);
  }

  /** After the library read a header: where its content ends, checked against the bounds. */
  #contentEnd(what: string): number {
    const start = this.#reader.offset;
    const length = this.#reader.length;
    if (length < 0 || start + length > this.#end) throw new ProtocolError(`${what}: length exceeds its container`);
    return start + length;
  }
}

function integerValue(content: Buffer, what: string): number {
  const size = content.length;
  if (size < 1 || size > 4) throw new ProtocolError(`${what}: an integer must be 1 to 4 octets`);
  let value = (content[0]! << 24) >> 24;
  for (let i = 1; i < size; i++) value = value * 256 + content[i]!;
  return value;
}

export function utf8(content: Buffer, what: string): string {
  const text = utf8At(content, 0, content.length);
  if (text === undefined) throw new ProtocolError(`${what}: not valid UTF-8`);
  return text;
}

/** Any error thrown while decoding, as a ProtocolError carrying `messageId` when known. */
export function asProtocolError(error: unknown, messageId?: number): ProtocolError {
  if (error instanceof ProtocolError) {
    return error.messageId === messageId ? error : new ProtocolError(error.message, messageId);
  }
  return new ProtocolError(`malformed BER: ${errorMessage(error)}`, messageId);
}

export function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}
