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
 * sharing a slot only take turns. A holder may take more locks while it holds some only if they
 * are free at once (tryAdd): it never waits for them, so that cannot deadlock either.
 */
export class KeyedMutex {
  /** The last holder's release, per key; a key is forgotten when its queue empties. */
  private readonly tails = new Map<string, Promise<void>>();
  /** `clock`: a reading taken when a holder's locks are all taken (HeldLocks.since); 0 without one. */
  constructor(private readonly shared?: SharedSlots, private readonly clock: () => number = () => 0) {}

  /**
   * Runs every critical section once its locks are taken, when set: a node of a PostgreSQL store
   * takes the same entries' row locks there (postgres/record.ts).
   */
  inside: (<T>(keys: readonly string[], critical: () => Promise<T>, held: HeldLocks) => Promise<T>) | undefined;

  /**
   * Runs `critical` holding the keys' locks; it may take more with `held.tryAdd` (those free
   * now, all or none, never waiting, so out of sorted order without a deadlock).
   */
  async run<T>(keys: readonly string[], critical: (held: HeldLocks) => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    const sorted = [...new Set(keys)].sort();
    const held = { keys: new Set(sorted), slots: new Set<number>(), releases };
    try {
      for (const key of sorted) releases.push(await this.acquire(key));
      if (this.shared) {
        releases.push(await this.shared.acquire(sorted));
        for (const key of sorted) held.slots.add(slotOf(key));
      }
      // No AsyncLocalStorage here: once used, Node 20 runs a hook on every promise of the process (3x slower promises).
      const holding: HeldLocks = { keys: held.keys, since: this.clock(), tryAdd: (more) => this.tryAdd(more, held) };
      const inside = this.inside;
      return await (inside ? inside(sorted, () => critical(holding), holding) : critical(holding));
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** Takes the locks of `keys` not held yet if none is held or waited for (and their slots are free): all or none. */
  private tryAdd(keys: readonly string[], held: { keys: Set<string>; slots: Set<number>; releases: (() => void)[] }): boolean {
    const fresh = [...new Set(keys)].filter((key) => !held.keys.has(key));
    if (fresh.some((key) => this.tails.has(key))) return false;
    if (this.shared) {
      const release = this.shared.tryAcquire(fresh, held.slots);
      if (!release) return false;
      held.releases.push(release);
    }
    for (const key of fresh) {
      held.releases.push(this.hold(key).release);
      held.keys.add(key);
    }
    return true;
  }

  /** Keys held or waited for right now (for tests: nothing stays behind). */
  get size(): number {
    return this.tails.size;
  }

  private async acquire(key: string): Promise<() => void> {
    const { previous, release } = this.hold(key);
    if (previous) await previous;
    return release;
  }

  /** Queues for the key: its previous holder's release to wait for, and this holder's release. */
  private hold(key: string): { previous: Promise<void> | undefined; release: () => void } {
    const previous = this.tails.get(key);
    let resolve!: () => void;
    const held = new Promise<void>((done) => { resolve = done; });
    this.tails.set(key, held);
    return {
      previous,
      release: () => {
        if (this.tails.get(key) === held) this.tails.delete(key);
        resolve();
      },
    };
  }
}

/**
 * What a holder of locks (KeyedMutex.run) holds and may do meanwhile: the keys it holds (those
 * taken later with tryAdd included), and the clock's reading when it took the first.
 */
export interface HeldLocks {
  readonly keys: ReadonlySet<string>;
  readonly since: number;
  /** Takes the locks of these keys too if each is free now (none held or waited for): true if it took them all, false if none. */
  tryAdd(keys: readonly string[]): boolean;
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

  /**
   * Takes the slots of `keys` not in `held` if each is free now (never waiting): adds them to
   * `held` and resolves their release, or takes none and returns undefined.
   */
  tryAcquire(keys: readonly string[], held: Set<number>): (() => void) | undefined {
    const slots = [...new Set(keys.map(slotOf))].filter((slot) => !held.has(slot));
    const taken: number[] = [];
    for (const slot of slots) {
      if (Atomics.compareExchange(this.slots, slot, FREE, this.owner) !== FREE) {
        taken.forEach((mine) => this.give(mine));
        return undefined;
      }
      taken.push(slot);
    }
    taken.forEach((slot) => held.add(slot));
    return () => taken.forEach((slot) => this.give(slot));
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
