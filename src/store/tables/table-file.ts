/**
 * One LevelDB table file (table/table_builder.cc, doc/table_format.md), written from entries in
 * key order without going through a memtable:
 *
 *   data block ... | filter block | metaindex block | index block | footer (48 bytes)
 *
 * Each block is followed by its trailer: a type byte (0: not compressed) and the masked CRC-32C
 * of the block and that byte. Keys are internal keys (the user key, then 8 bytes: the sequence
 * number shifted left 8, or'ed with 1 for a value); the filter holds user keys; the index has,
 * per data block, its last key and its place. Blocks other than the filter are compressed with
 * snappy when that saves an eighth of them or more, as LevelDB does (type byte 1), else written
 * as they are (type byte 0).
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { BlockBuilder } from './block.js';
import { FILTER_NAME, FilterBlockBuilder } from './bloom.js';
import { Bytes } from './bytes.js';
import { crc32c, maskCrc } from './crc32c.js';
import { SnappyCompressor } from './snappy.js';

/** classic-level's block size (its blockSize option's default). */
const BLOCK_BYTES = 4096;
const RESTART_INTERVAL = 16;
const NO_COMPRESSION = 0;
const SNAPPY = 1;
const TRAILER_BYTES = 5;
const FOOTER_PADDED = 40;
const MAGIC_LOW = 0x8b80fb57;
const MAGIC_HIGH = 0xdb477524;
/** Bytes gathered before a write to the file. */
const WRITE_BYTES = 1 << 20;
const TYPE_BYTES = [Buffer.from([NO_COMPRESSION]), Buffer.from([SNAPPY])];

/** The internal key suffix of a value at sequence `sequence` (small: fits a u32 after the shift). */
export function valueTag(sequence: number): Buffer {
  const tag = Buffer.alloc(8);
  tag.writeUInt32LE(((sequence * 256) % 2 ** 32) + 1, 0);
  tag.writeUInt32LE(Math.floor((sequence * 256) / 2 ** 32), 4);
  return tag;
}

/** What the descriptor (descriptor.ts) says of a table. */
export interface TableMeta {
  readonly number: number;
  readonly size: number;
  readonly smallest: Buffer;
  readonly largest: Buffer;
}

interface Handle {
  readonly offset: number;
  readonly size: number;
}

export class TableFile {
  private readonly fd: number;
  private readonly data = new BlockBuilder(RESTART_INTERVAL);
  private readonly index = new BlockBuilder(1);
  private readonly filter = new FilterBlockBuilder();
  private readonly out = new Bytes(WRITE_BYTES + BLOCK_BYTES * 4);
  private readonly handle = new Bytes(20);
  private readonly snappy = new SnappyCompressor();
  private offset = 0;
  private smallest: Buffer | undefined;
  /** The last key added (a copy: the caller's buffer is reused). */
  private readonly last = new Bytes(256);

  constructor(private readonly path: string, readonly number: number) {
    this.fd = openSync(path, 'wx');
    this.filter.startBlock(0);
  }

  /** The file's size so far (what is written and what its current block holds). */
  get size(): number {
    return this.offset + this.data.size;
  }

  /**
   * Adds an entry: its internal key is the first `keyLength` bytes of `key` (the user key, then
   * 8 bytes of sequence and type); keys come in increasing order.
   */
  add(key: Buffer, keyLength: number, value: Uint8Array): void {
    this.smallest ??= Buffer.from(key.subarray(0, keyLength));
    this.filter.addKey(key, keyLength - 8);
    this.data.add(key, keyLength, value);
    this.last.reset();
    this.last.append(key, 0, keyLength);
    if (this.data.size >= BLOCK_BYTES) this.flushBlock();
  }

  /** Writes the rest of the table, syncs and closes the file. */
  finish(): TableMeta {
    try {
      this.flushBlock();
      const filter = this.writeRaw(this.filter.finish(), NO_COMPRESSION);
      const meta = new BlockBuilder(RESTART_INTERVAL);
      const name = Buffer.from(FILTER_NAME);
      meta.add(name, name.length, encodeHandle(this.handle, filter));
      const metaindex = this.writeBlock(meta.finish());
      const index = this.writeBlock(this.index.finish());
      this.writeFooter(metaindex, index);
      this.drain();
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
    return { number: this.number, size: this.offset, smallest: this.smallest ?? Buffer.alloc(0), largest: Buffer.from(this.last.view) };
  }

  /** Closes the file without finishing it, and removes it. */
  abandon(): void {
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }

  private flushBlock(): void {
    if (this.data.entries === 0) return;
    const handle = this.writeBlock(this.data.finish());
    this.data.reset();
    // The index key of a block: its last key (at least every key in it, less than every key after it).
    const last = this.last.view;
    this.index.add(last, last.length, encodeHandle(this.handle, handle));
    this.filter.startBlock(this.offset);
  }

  /** Writes a block compressed, when that saves an eighth of it (LevelDB's rule). */
  private writeBlock(raw: Buffer): Handle {
    const compressed = this.snappy.compress(raw);
    return compressed.length < raw.length - Math.floor(raw.length / 8) ? this.writeRaw(compressed, SNAPPY) : this.writeRaw(raw, NO_COMPRESSION);
  }

  private writeRaw(contents: Buffer, type: number): Handle {
    const handle = { offset: this.offset, size: contents.length };
    const crc = crc32c(TYPE_BYTES[type]!, 0, 1, crc32c(contents));
    this.out.append(contents);
    this.out.byte(type);
    this.out.fixed32(maskCrc(crc));
    this.offset += contents.length + TRAILER_BYTES;
    if (this.out.length >= WRITE_BYTES) this.drain();
    return handle;
  }

  private writeFooter(metaindex: Handle, index: Handle): void {
    const start = this.out.length;
    encodeHandleInto(this.out, metaindex);
    encodeHandleInto(this.out, index);
    while (this.out.length < start + FOOTER_PADDED) this.out.byte(0);
    this.out.fixed32(MAGIC_LOW);
    this.out.fixed32(MAGIC_HIGH);
    this.offset += this.out.length - start;
  }

  private drain(): void {
    const view = this.out.view;
    let written = 0;
    while (written < view.length) written += writeSync(this.fd, view, written, view.length - written);
    this.out.reset();
  }
}

function encodeHandleInto(out: Bytes, handle: Handle): void {
  out.varint(handle.offset);
  out.varint(handle.size);
}

/** A block handle's encoding, in `scratch` (a view valid until its next use). */
function encodeHandle(scratch: Bytes, handle: Handle): Buffer {
  scratch.reset();
  encodeHandleInto(scratch, handle);
  return scratch.view;
}
