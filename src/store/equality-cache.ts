/**
 * Recent answers of the equality index: the dnKeys under one attribute's value, as a search's
 * candidates, so that a repeated `(uid=user.N)` reads no index keys (a LevelDB iterator costs a
 * trip to the thread pool; the entries are still read, and the whole filter tested on them, each
 * time). Every answer holds only while no write has finished since it was read: the write gate's
 * count of settled writes (shared by every thread, write-gate.ts) is checked on each use and any
 * change empties the cache. A write that lands while an answer is being read moves the count after
 * the read began, so that answer is never kept. Past EQUALITY_CACHE_ANSWERS the oldest answer goes
 * first (kept first, not used last: a hit costs one Map read); answers of more than
 * EQUALITY_CACHE_KEYS keys are not kept.
 */

/** Answers kept per thread (about 200 bytes each for a one-entry answer). */
export const EQUALITY_CACHE_ANSWERS = 16_384;
/** The most keys one kept answer holds (a unique attribute has one; objectClass=person has them all). */
export const EQUALITY_CACHE_KEYS = 16;

export class EqualityCache {
  private readonly answers = new Map<string, readonly string[]>();
  private stamp: number;

  /** `settled`: the count of writes finished so far (WriteGate.settled). */
  constructor(private readonly settled: () => number, private readonly capacity = EQUALITY_CACHE_ANSWERS) {
    this.stamp = settled();
  }

  /** The count to give `keep` with an answer about to be read. */
  begin(): number {
    return this.settled();
  }

  /** The kept answer for an index range's start key, if no write has finished since it was read. */
  get(start: string): readonly string[] | undefined {
    this.expire();
    return this.answers.get(start);
  }

  /** Keeps a complete answer, read after `begin()` returned `stamp`, unless a write finished since. */
  keep(start: string, keys: readonly string[], stamp: number): void {
    this.expire();
    if (stamp !== this.stamp || keys.length > EQUALITY_CACHE_KEYS) return;
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(start, keys);
  }

  private expire(): void {
    const now = this.settled();
    if (now === this.stamp) return;
    this.answers.clear();
    this.stamp = now;
  }
}
