/**
 * Connections open per client address, over every serving thread (`--max-connections-per-address`),
 * in shared memory. The table, an Int32Array over a SharedArrayBuffer:
 *
 *   [0]             lock word: 0 free, 1 held (held for a few instructions: a probe and a count)
 *   [1 + 3i ...]    slot i: hash high, hash low, count
 *
 * An address is known by a 64-bit hash of its text (two FNV-1a runs), so two addresses share a
 * count only if both halves collide. Open addressing with linear probing; an address whose count
 * falls to 0 leaves the table (the slots after it in its run move back), so lookups stay short
 * however many addresses come and go. The table has twice as many slots as connections can be
 * open at once on every listener, so it is never more than half full.
 */
import { fnv1a } from '../../store/index.js';

const LOCK = 0;
const HEADER = 1;
const SLOT = 3;
const HASH_HIGH = 0;
const HASH_LOW = 1;
const COUNT = 2;

/** An IPv4 client seen through an IPv6 socket (`::ffff:10.0.0.1`) is the IPv4 address. */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class AddressCounts {
  private readonly table: Int32Array;
  private readonly slots: number;

  /** A table for up to `maxConnections` connections open at once on each of `listeners` listeners. */
  static allocate(maxConnections: number, listeners = 2): SharedArrayBuffer {
    const slots = Math.max(64, 2 ** Math.ceil(Math.log2(maxConnections * listeners * 2)));
    return new SharedArrayBuffer((HEADER + slots * SLOT) * Int32Array.BYTES_PER_ELEMENT);
  }

  constructor(buffer: SharedArrayBuffer) {
    this.table = new Int32Array(buffer);
    this.slots = (this.table.length - HEADER) / SLOT;
  }

  /** Counts a new connection from `address` if it has fewer than `max` open; false (nothing counted) if not. */
  admit(address: string, max: number): boolean {
    return this.locked(() => {
      const slot = this.find(address, true);
      if (slot === -1 || this.table[slot + COUNT]! >= max) return false;
      this.table[slot + COUNT] = this.table[slot + COUNT]! + 1;
      return true;
    });
  }

  /** A connection from `address` closed. */
  release(address: string): void {
    this.locked(() => {
      const slot = this.find(address, false);
      if (slot === -1) return;
      this.table[slot + COUNT] = this.table[slot + COUNT]! - 1;
      if (this.table[slot + COUNT]! <= 0) this.remove((slot - HEADER) / SLOT);
    });
  }

  /** Empties slot `index` and moves back the slots after it in its run that belong before it. */
  private remove(index: number): void {
    let hole = index;
    for (let i = (hole + 1) % this.slots; ; i = (i + 1) % this.slots) {
      const slot = HEADER + i * SLOT;
      if (this.table[slot + HASH_LOW] === 0) break;
      const home = (this.table[slot + HASH_HIGH]! >>> 0) % this.slots;
      // The slot may fill the hole unless its home lies (cyclically) after the hole, up to it.
      const between = hole <= i ? home > hole && home <= i : home > hole || home <= i;
      if (between) continue;
      this.table.copyWithin(HEADER + hole * SLOT, slot, slot + SLOT);
      hole = i;
    }
    this.table.fill(0, HEADER + hole * SLOT, HEADER + (hole + 1) * SLOT);
  }

  /** Connections open from `address` now. */
  count(address: string): number {
    return this.locked(() => {
      const slot = this.find(address, false);
      return slot === -1 ? 0 : this.table[slot + COUNT]!;
    });
  }

  private locked<T>(work: () => T): T {
    while (Atomics.compareExchange(this.table, LOCK, 0, 1) !== 0) {
      // Another thread holds it for a few instructions: spin.
    }
    try {
      return work();
    } finally {
      Atomics.store(this.table, LOCK, 0);
    }
  }

  /** The index of the address's slot; with `claim`, the free slot ending its run is taken for it. -1: absent. */
  private find(address: string, claim: boolean): number {
    const high = fnv1a(address);
    const low = fnv1a(address, 0x050c5d1f) | 1; // never 0: a slot with 0 there is empty
    for (let probe = 0, i = (high >>> 0) % this.slots; probe < this.slots; probe += 1, i = (i + 1) % this.slots) {
      const slot = HEADER + i * SLOT;
      const slotLow = this.table[slot + HASH_LOW]!;
      if (slotLow === 0) return claim ? this.take(slot, high, low) : -1;
      if (slotLow === low && this.table[slot + HASH_HIGH] === high) return slot;
    }
    return -1;
  }

  private take(slot: number, high: number, low: number): number {
    this.table[slot + HASH_HIGH] = high;
    this.table[slot + HASH_LOW] = low;
    this.table[slot + COUNT] = 0;
    return slot;
  }
}
