/**
 * Caches of what the database answered, kept per thread only while no write has finished: the
 * write gate's count of settled writes (shared by every thread, write-gate.ts) is checked on each
 * use and any change empties the cache. A write that lands while an answer is being read moves
 * the count after the read began, so that answer is never kept. Past the capacity the oldest
 * answers go first (kept first, not used last: a hit costs one Map read).
 *
 * Three are kept in reads.ts: recent answers of the equality index, the dnKeys under one
 * attribute's value, so that a repeated `(uid=user.N)` reads no index keys (a LevelDB iterator
 * costs a trip to the thread pool); recent entry records, so that the entry a search or a bind
 * reads again is one Map read instead of a LevelDB read (a few µs each, twice per search: the base
 * and the entry); and, where the record cache is off, the dnKeys of search bases found to exist.
 * Three more in memberships.ts: an entry's groups (its memberOf), isMember's answers, and groups'
 * member lists.
 */

/** Equality answers kept per thread (about 200 bytes each for a one-entry answer). */
export const EQUALITY_CACHE_ANSWERS = 16_384;
/** The most keys one kept answer holds (a unique attribute has one; objectClass=person has them all). */
export const EQUALITY_CACHE_KEYS = 16;
/** Search bases known to exist, kept per thread (a directory has few: its naming contexts and their branches). */
export const BASE_CACHE_KEYS = 256;
/** What a kept record costs beyond its bytes (the Buffer object, the key, the Map's slot). */
export const RECORD_OVERHEAD = 160;
/** Record lookups over which the record cache counts the records it pushed out. */
export const RECORD_WINDOW = 4096;
/** A record cache that pushed out more records than this share of a window's lookups lets them go and keeps none... */
export const RECORD_MAX_EVICTION_RATE = 1 / 16;
/** ...for this many windows, then keeps them for one window and judges again. */
export const RECORD_PAUSE_WINDOWS = 15;

export class StampedCache<V> {
  private readonly kept = new Map<string, V>();
  private stamp: number;
  private used = 0;
  /** Values pushed out to make room, since start. */
  protected evicted = 0;

  /** `settled`: the count of writes finished so far (WriteGate.settled); `cost`: what one value takes of `capacity`. */
  constructor(private readonly settled: () => number, private readonly capacity: number, private readonly cost: (value: V) => number = () => 1) {
    this.stamp = settled();
  }

  /** The count to give `keep` with an answer about to be read. */
  begin(): number {
    return this.settled();
  }

  /** The kept answer for this key, if no write has finished since it was read. */
  get(key: string): V | undefined {
    this.expire();
    return this.kept.get(key);
  }

  /** Keeps a complete answer, read after `begin()` returned `stamp`, unless a write finished since. */
  keep(key: string, value: V, stamp: number): void {
    this.expire();
    const cost = this.cost(value);
    if (stamp !== this.stamp || cost > this.capacity) return;
    this.drop(key);
    while (this.used + cost > this.capacity) {
      this.drop(this.kept.keys().next().value!);
      this.evicted += 1;
    }
    this.kept.set(key, value);
    this.used += cost;
  }

  private drop(key: string): void {
    const value = this.kept.get(key);
    if (value === undefined) return;
    this.kept.delete(key);
    this.used -= this.cost(value);
  }

  /** Lets every kept value go. */
  protected empty(): void {
    this.kept.clear();
    this.used = 0;
  }

  private expire(): void {
    const now = this.settled();
    if (now === this.stamp) return;
    this.empty();
    this.stamp = now;
  }
}

/** Equality answers: at most EQUALITY_CACHE_ANSWERS, none of more than EQUALITY_CACHE_KEYS keys. */
export class EqualityCache extends StampedCache<readonly string[]> {
  constructor(settled: () => number, capacity = EQUALITY_CACHE_ANSWERS) {
    super(settled, capacity);
  }

  override keep(start: string, keys: readonly string[], stamp: number): void {
    if (keys.length <= EQUALITY_CACHE_KEYS) super.keep(start, keys, stamp);
  }
}

/**
 * Entry records by dnKey: at most `capacity` bytes of them (store.ts: `--entry-cache-mb`; a
 * make-ldif user's record is about 1 KB). It pays only while the records read again fit in it:
 * when they do not (10,000 users binding at random through 8 MiB), each new record pushes out
 * one that will be read again, and every record kept lives long enough for V8 to move it to the
 * old generation, where it soon dies: work for the collector that cost more than the reads saved
 * (binds 0.88-0.89x as fast, measured). So a cache that pushed out more than RECORD_MAX_EVICTION_RATE of
 * a window's lookups lets its records go and keeps none for RECORD_PAUSE_WINDOWS windows, then
 * tries again for one.
 */
export class RecordCache extends StampedCache<Buffer> {
  private lookups = 0;
  private evictedBefore = 0;
  private paused = 0;

  constructor(settled: () => number, capacity: number) {
    super(settled, capacity, (record) => record.length + RECORD_OVERHEAD);
  }

  override get(key: string): Buffer | undefined {
    const record = super.get(key);
    this.lookups += 1;
    if (this.lookups === RECORD_WINDOW) this.judge();
    return record;
  }

  override keep(key: string, record: Buffer, stamp: number): void {
    if (this.paused === 0) super.keep(key, record, stamp);
  }

  /** Whether new records are being kept (for tests). */
  get keeping(): boolean {
    return this.paused === 0;
  }

  private judge(): void {
    if (this.paused > 0) this.paused -= 1;
    else if (this.evicted - this.evictedBefore > RECORD_WINDOW * RECORD_MAX_EVICTION_RATE) {
      this.paused = RECORD_PAUSE_WINDOWS;
      this.empty();
    }
    this.lookups = 0;
    this.evictedBefore = this.evicted;
  }
}
