/**
 * Connections open per client address, over every serving thread (`--max-connections-per-address`),
 * in shared memory. The table, an Int32Array over a SharedArrayBuffer:
 *
 *   [0]             lock word: 0 free, 1 held (held for a few instructions: a probe and a count)
 *   [1 + 3i ...]    slot i: hash high, hash low, count
 *
 * An address is known by a 64-bit hash of its text (two FNV-1a runs), so two addresses share a
 * count only if both halves collide. Open addressing with linear probing; a slot whose count
 * fell to 0 keeps its hash (a tombstone) and is reused by the next new address probing past it.
 * The table has twice as many slots as --max-connections, so it never fills with live slots.
 */

const LOCK = 0;
const HEADER = 1;
const SLOT = 3;
const HASH_HIGH = 0;
const HASH_LOW = 1;
const COUNT = 2;

function fnv1a(text: string, basis: number): number {
  let hash = basis;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** An IPv4 client seen through an IPv6 socket (`::ffff:10.0.0.1`) is the IPv4 address. */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class AddressCounts {
  private readonly table: Int32Array;
  private readonly slots: number;

  /** A table for up to `maxConnections` connections open at once. */
  static allocate(maxConnections: number): SharedArrayBuffer {
    const slots = Math.max(64, 2 ** Math.ceil(Math.log2(maxConnections * 2)));
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
      this.table[slot + COUNT] += 1;
      return true;
    });
  }

  /** A connection from `address` closed. */
  release(address: string): void {
    this.locked(() => {
      const slot = this.find(address, false);
      if (slot !== -1 && this.table[slot + COUNT]! > 0) this.table[slot + COUNT] -= 1;
    });
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

  /** The index of the address's slot; with `claim`, a free one (or the first tombstone) is taken for it. -1: absent. */
  private find(address: string, claim: boolean): number {
    const high = fnv1a(address, 0x811c9dc5);
    const low = fnv1a(address, 0x050c5d1f) | 1; // never 0: a 0/0 slot is empty
    let reusable = -1;
    for (let probe = 0, i = (high >>> 0) % this.slots; probe < this.slots; probe += 1, i = (i + 1) % this.slots) {
      const slot = HEADER + i * SLOT;
      const slotLow = this.table[slot + HASH_LOW]!;
      if (slotLow === 0) return claim ? this.take(reusable === -1 ? slot : reusable, high, low) : -1;
      if (slotLow === low && this.table[slot + HASH_HIGH] === high) return slot;
      if (reusable === -1 && this.table[slot + COUNT] === 0) reusable = slot;
    }
    if (claim && reusable !== -1) return this.take(reusable, high, low);
    return -1;
  }

  private take(slot: number, high: number, low: number): number {
    this.table[slot + HASH_HIGH] = high;
    this.table[slot + HASH_LOW] = low;
    this.table[slot + COUNT] = 0;
    return slot;
  }
}
