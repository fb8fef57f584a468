/**
 * Locks by name (a dnKey): a read-check-write sequence on an entry runs without another write
 * to the same entry in between, while writes to other entries go ahead (and LevelDB can commit
 * their synced batches together). A write that needs several entries takes their locks in
 * sorted order, so two writes never wait for each other.
 *
 * Within a thread, waiters queue in arrival order. When several threads serve one database
 * (`serve --threads`), each also takes the key's slot in a table shared by all of them
 * (SharedSlots): a key hashes to a slot, slots are taken in ascending order after every key of
 * the thread's own queue, so no two writes wait for each other across threads either. Two keys
 * sharing a slot only take turns.
 */
export class KeyedMutex {
  /** The last holder's release, per key; a key is forgotten when its queue empties. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly shared?: SharedSlots) {}

  async run<T>(keys: readonly string[], critical: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    const sorted = [...new Set(keys)].sort();
    try {
      for (const key of sorted) releases.push(await this.acquire(key));
      if (this.shared) releases.push(await this.shared.acquire(sorted));
      return await critical();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** Keys held or waited for right now (for tests: nothing stays behind). */
  get size(): number {
    return this.tails.size;
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    this.tails.set(key, held);
    if (previous) await previous;
    return () => {
      if (this.tails.get(key) === held) this.tails.delete(key);
      release();
    };
  }
}

/** Slots of the shared lock table: enough that unrelated entries rarely take turns. */
const SLOTS = 4096;
const FREE = 0;

/** FNV-1a (32 bits, as a signed integer) over the text's UTF-16 code units, from `basis`. */
export function fnv1a(text: string, basis = 0x811c9dc5): number {
  let hash = basis;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** The key's slot: FNV-1a over it. */
export function slotOf(key: string): number {
  return (fnv1a(key) >>> 0) % SLOTS;
}

/**
 * A table of locks in shared memory, one per slot: each thread wraps the same buffer with its
 * own owner number (1 and up), which a held slot records, so the slots of a thread that died
 * holding some can be freed (freeOwnedBy) and the other threads' writes go on.
 */
export class SharedSlots {
  private readonly slots: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = SharedSlots.allocate(), private readonly owner = 1) {
    if (!Number.isInteger(owner) || owner < 1) throw new RangeError(`a slot owner is a number from 1, not ${owner}`);
    this.slots = new Int32Array(buffer);
  }

  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  }

  /** Takes the slots of `keys` in ascending order; resolves with their release. */
  async acquire(keys: readonly string[]): Promise<() => void> {
    const slots = [...new Set(keys.map(slotOf))].sort((a, b) => a - b);
    for (const slot of slots) await this.take(slot);
    return () => slots.forEach((slot) => this.give(slot));
  }

  /** Slots held right now, in every thread (for tests). */
  get held(): number {
    return this.slots.reduce((count, value) => count + (value === FREE ? 0 : 1), 0);
  }

  /** Frees every slot `owner` holds (that thread has died); returns how many. */
  freeOwnedBy(owner: number): number {
    let freed = 0;
    for (let slot = 0; slot < SLOTS; slot += 1) {
      if (Atomics.compareExchange(this.slots, slot, owner, FREE) !== owner) continue;
      Atomics.notify(this.slots, slot);
      freed += 1;
    }
    return freed;
  }

  /**
   * A pending Atomics.waitAsync does not keep a thread's event loop alive by itself; a serving
   * thread has its listeners (and a stopping one its drain timer) for that.
   */
  private async take(slot: number): Promise<void> {
    for (;;) {
      const holder = Atomics.compareExchange(this.slots, slot, FREE, this.owner);
      if (holder === FREE) return;
      const wait = Atomics.waitAsync(this.slots, slot, holder);
      if (wait.async) await wait.value;
    }
  }

  private give(slot: number): void {
    Atomics.store(this.slots, slot, FREE);
    Atomics.notify(this.slots, slot, 1);
  }
}
