/**
 * Locks by name (a dnKey): a read-check-write sequence on an entry runs without another write
 * to the same entry in between, while writes to other entries go ahead (and LevelDB can commit
 * their synced batches together). A write that needs several entries takes their locks in
 * sorted order, so two writes never wait for each other.
 */
export class KeyedMutex {
  /** The last holder's release, per key; a key is forgotten when its queue empties. */
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: readonly string[], critical: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) releases.push(await this.acquire(key));
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
