/**
 * A block of a LevelDB table (table/block_builder.cc): sorted entries, each key stored as the
 * bytes it shares with the key before it and the rest; every `interval` entries a restart point
 * stores its key whole, and the block ends with the restart points' offsets and their count.
 *
 *   entry:  varint shared | varint unshared | varint value bytes | key[shared..] | value
 *   block:  entries | u32le restart offset ... | u32le restart count
 */
import { Bytes } from './bytes.js';

export class BlockBuilder {
  private readonly bytes = new Bytes(8192);
  private restarts: number[] = [0];
  private sinceRestart = 0;
  private last = Buffer.allocUnsafe(256);
  private lastLength = 0;
  entries = 0;

  constructor(private readonly interval: number) {}

  /** The block's size once finished. */
  get size(): number {
    return this.bytes.length + this.restarts.length * 4 + 4;
  }

  /** Adds an entry, its key the first `keyLength` bytes of `key`; keys come in increasing order. */
  add(key: Uint8Array, keyLength: number, value: Uint8Array): void {
    let shared = 0;
    if (this.sinceRestart < this.interval) {
      const limit = Math.min(this.lastLength, keyLength);
      while (shared < limit && this.last[shared] === key[shared]) shared += 1;
    } else {
      this.restarts.push(this.bytes.length);
      this.sinceRestart = 0;
    }
    this.bytes.varint(shared);
    this.bytes.varint(keyLength - shared);
    this.bytes.varint(value.length);
    this.bytes.append(key, shared, keyLength);
    this.bytes.append(value);
    this.remember(key, keyLength);
    this.sinceRestart += 1;
    this.entries += 1;
  }

  /** The block's bytes (a view, valid until `reset`). */
  finish(): Buffer {
    for (const offset of this.restarts) this.bytes.fixed32(offset);
    this.bytes.fixed32(this.restarts.length);
    return this.bytes.view;
  }

  reset(): void {
    this.bytes.reset();
    this.restarts = [0];
    this.sinceRestart = 0;
    this.lastLength = 0;
    this.entries = 0;
  }

  private remember(key: Uint8Array, keyLength: number): void {
    if (keyLength > this.last.length) this.last = Buffer.allocUnsafe(keyLength * 2);
    const last = this.last;
    for (let i = 0; i < keyLength; i += 1) last[i] = key[i]!;
    this.lastLength = keyLength;
  }
}
