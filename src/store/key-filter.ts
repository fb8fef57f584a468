/**
 * A Bloom filter of keys (fixed size, so its memory does not grow with what it holds): `mightHold`
 * is false only for a key never added. A bulk load into an empty database keeps one of the
 * entries it placed, so that checking a new entry's key needs no read unless the filter says
 * the key might be there (then a read decides: the checks stay exact).
 */
import { fnv1a } from './mutex.js';

/** 8 MiB of bits: about one false "might" in 10^6 for a million keys, one in 50 for ten million. */
const BITS_LOG2 = 26;
const PROBES = 4;
const SECOND_BASIS = 0x01234567;

export class KeyFilter {
  private readonly words = new Uint32Array(1 << (BITS_LOG2 - 5));
  private readonly mask = (1 << BITS_LOG2) - 1;

  add(key: string): void {
    const [first, step] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (first + i * step) & this.mask;
      this.words[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mightHold(key: string): boolean {
    const [first, step] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (first + i * step) & this.mask;
      if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two independent hashes for double hashing (the step odd, so the probes differ). */
function hashes(key: string): [number, number] {
  return [fnv1a(key) >>> 0, (fnv1a(key, SECOND_BASIS) | 1) >>> 0];
}
