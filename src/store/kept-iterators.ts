/**
 * LevelDB iterators over one key space (the equality index, the memberships), kept between
 * lookups by each thread. Closing an
 * iterator costs a trip to LevelDB's thread beyond the read, and making one sets up its view of
 * every table; a kept one is moved with a seek, and a lookup that misses the equality cache takes
 * 43-46 µs of CPU instead of 67-84 (100,000 and 1,000,000 users, docs/performance.md, "Index
 * iterators kept between lookups (2026-12-04, the AMD EPYC host)").
 *
 * An iterator reads the database as it was when it was made, so a kept one is lent only while no
 * write has finished since (the write gate's settled count, as the caches of stamped-cache.ts
 * use it: a write counts as finished before it is acknowledged, so an acknowledged write is never
 * missed). An iterator is lent to one lookup at a time; at most MAX_IDLE wait between lookups, and
 * idle ones are closed after IDLE_MS so that none holds on to table files LevelDB has replaced.
 */
/** Idle iterators kept per thread (as many lookups as run at once, up to this). */
const MAX_IDLE = 16;
/** An iterator idle this long is closed. */
const IDLE_MS = 1_000;

/** What a lookup does with a kept iterator: a LevelDB iterator of keys (T: string) or of entries (T: [key, value]). */
export interface SeekIterator<T> {
  seek(target: string): void;
  nextv(size: number): Promise<T[]>;
  close(): Promise<void>;
}

/** An iterator lent to one lookup, and the settled count it reads at. */
export interface Lease<T> {
  readonly iterator: SeekIterator<T>;
  readonly stamp: number;
}

export class KeptIterators<T> {
  private idle: (Lease<T> & { readonly at: number })[] = [];
  private sweeper: ReturnType<typeof setInterval> | undefined;

  /** `make`: a new iterator over the key space; `settled`: the count of writes finished so far (WriteGate.settled). */
  constructor(private readonly make: () => SeekIterator<T>, private readonly settled: () => number) {}

  /** An iterator that reads the database as it is now: a kept one if no write finished since it was made. */
  take(): Lease<T> {
    const now = this.settled();
    for (let lease = this.idle.pop(); lease !== undefined; lease = this.idle.pop()) {
      if (lease.stamp === now) return lease;
      close(lease.iterator);
    }
    return { iterator: this.make(), stamp: now };
  }

  /** Gives an iterator back after a lookup that ended cleanly (`usable`), else closes it. */
  give(lease: Lease<T>, usable: boolean): void {
    if (!usable || lease.stamp !== this.settled() || this.idle.length >= MAX_IDLE) {
      close(lease.iterator);
      return;
    }
    this.idle.push({ ...lease, at: performance.now() });
    this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS).unref();
  }

  /** Closes the iterators idle for IDLE_MS or more. */
  private sweep(): void {
    const oldest = performance.now() - IDLE_MS;
    for (const lease of this.idle) if (lease.at <= oldest) close(lease.iterator);
    this.idle = this.idle.filter((lease) => lease.at > oldest);
    if (this.idle.length > 0) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/** Closes an iterator without waiting (a closing database closes it too; nothing to report). */
function close(iterator: SeekIterator<unknown>): void {
  iterator.close().catch(() => undefined);
}
