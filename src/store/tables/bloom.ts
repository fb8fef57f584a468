/**
 * LevelDB's Bloom filters (util/bloom.cc, with the database's 10 bits a key) and the filter block
 * of a table (table/filter_block.cc): one filter for the keys of the data blocks starting in each
 * 2 KiB of the file, then the filters' offsets, the offsets' offset, and the base's log2 (11).
 * Filters hold user keys (the database's InternalFilterPolicy strips the sequence). Pure.
 */
import { Bytes } from './bytes.js';

export const FILTER_NAME = 'filter.leveldb.BuiltinBloomFilter2';
const BITS_PER_KEY = 10;
/** Probes a key: BITS_PER_KEY * 0.69 rounded down, as LevelDB does. */
const PROBES = 6;
const BASE_LG = 11;
const SEED = 0xbc9f1d34;
const M = 0xc6a4a793;

/** LevelDB's Hash (util/hash.cc), a murmur-like hash of the first `n` bytes of `data`. */
export function leveldbHash(data: Uint8Array, seed: number, n = data.length): number {
  let h = (seed ^ Math.imul(n, M)) >>> 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const word = (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0;
    h = Math.imul((h + word) >>> 0, M) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  const rest = n - i;
  if (rest === 0) return h;
  if (rest === 3) h = (h + (data[i + 2]! << 16)) >>> 0;
  if (rest >= 2) h = (h + (data[i + 1]! << 8)) >>> 0;
  h = Math.imul((h + data[i]!) >>> 0, M) >>> 0;
  return (h ^ (h >>> 24)) >>> 0;
}

const bloomHash = (key: Uint8Array, length = key.length): number => leveldbHash(key, SEED, length);

/** Appends the Bloom filter of keys (given by their bloomHash) to `out`. */
function appendFilter(out: Bytes, hashes: readonly number[]): void {
  const bytes = Math.ceil(Math.max(hashes.length * BITS_PER_KEY, 64) / 8);
  const bits = bytes * 8;
  const array = new Uint8Array(bytes);
  for (const hash of hashes) {
    let h = hash;
    const delta = ((h >>> 17) | (h << 15)) >>> 0;
    for (let j = 0; j < PROBES; j += 1) {
      const position = h % bits;
      array[position >>> 3]! |= 1 << (position & 7);
      h = (h + delta) >>> 0;
    }
  }
  out.append(array);
  out.byte(PROBES);
}

/** The filter block of a table being written. */
export class FilterBlockBuilder {
  private readonly result = new Bytes(1 << 16);
  private readonly offsets: number[] = [];
  private hashes: number[] = [];

  /** A data block starts at `offset`: the keys added before it go to the filters of the blocks before. */
  startBlock(offset: number): void {
    const index = Math.floor(offset / (1 << BASE_LG));
    while (index > this.offsets.length) this.generate();
  }

  /** Adds the user key made of the first `length` bytes of `key`. */
  addKey(key: Uint8Array, length: number): void {
    this.hashes.push(bloomHash(key, length));
  }

  finish(): Buffer {
    if (this.hashes.length > 0) this.generate();
    const arrayOffset = this.result.length;
    for (const offset of this.offsets) this.result.fixed32(offset);
    this.result.fixed32(arrayOffset);
    this.result.byte(BASE_LG);
    return this.result.view;
  }

  private generate(): void {
    this.offsets.push(this.result.length);
    if (this.hashes.length === 0) return;
    appendFilter(this.result, this.hashes);
    this.hashes = [];
  }
}
