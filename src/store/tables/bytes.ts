/**
 * A growing byte buffer with LevelDB's encodings (util/coding.h): little-endian fixed-width
 * integers, varints (seven bits a byte, low first), length-prefixed slices.
 */
/** Copies up to this many bytes a byte at a time: cheaper than a view and a native copy. */
const SMALL_COPY = 64;

export class Bytes {
  private buffer: Buffer;
  length = 0;

  constructor(capacity = 4096) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** What was written (a view: valid until the next write or reset). */
  get view(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  fixed32(value: number): void {
    this.room(4);
    this.length = this.buffer.writeUInt32LE(value >>> 0, this.length);
  }

  /** A varint of up to 53 bits (file sizes and numbers; sequence numbers here are small). */
  varint(value: number): void {
    this.room(10);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    const count = end - start;
    this.room(count);
    const buffer = this.buffer;
    let at = this.length;
    if (count > SMALL_COPY) {
      buffer.set(data.subarray(start, end), at);
    } else {
      for (let i = start; i < end; i += 1) buffer[at++] = data[i]!;
    }
    this.length += count;
  }

  /** A varint length, then the bytes. */
  slice(data: Uint8Array): void {
    this.varint(data.length);
    this.append(data);
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
