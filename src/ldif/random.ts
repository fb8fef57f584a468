/** A small seeded PRNG (xoshiro128**), so generated data is the same for the same seed. */
import { createHash } from 'node:crypto';

export class SeededRandom {
  private readonly state: Uint32Array;

  constructor(seed: string) {
    const digest = createHash('sha256').update(seed).digest();
    this.state = new Uint32Array([digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12)]);
  }

  /** A 32-bit unsigned integer. */
  next(): number {
    const s = this.state;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** An integer in [0, bound). */
  below(bound: number): number {
    return Math.floor((this.next() / 0x1_0000_0000) * bound);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  digits(count: number): string {
    let text = '';
    for (let i = 0; i < count; i += 1) text += String(this.below(10));
    return text;
  }
}

function rotl(value: number, shift: number): number {
  return ((value << shift) | (value >>> (32 - shift))) >>> 0;
}
