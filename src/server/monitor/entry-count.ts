/** The database's entry count for monitoring: a walk over the entry keys, done at most every EVERY_MS (reads in between get the last count). */
import type { DirectoryStore } from '../../store/index.js';

const EVERY_MS = 10_000;

export class EntryCount {
  private counted?: { readonly at: number; readonly entries: Promise<number> };

  of(store: DirectoryStore): Promise<number> {
    const now = performance.now();
    if (!this.counted || now - this.counted.at > EVERY_MS) this.counted = { at: now, entries: store.countEntries() };
    return this.counted.entries;
  }
}
