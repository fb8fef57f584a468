/**
 * Bulk loading for offline import (like slapadd): entries come in chunks; one read per chunk
 * tells which of their keys exist, entries are checked in order against that and the entries
 * not yet on disk, and written in large unsynced batches while the next chunk is prepared.
 * `finish` ends with a synced write, so everything is on disk when it resolves.
 */
import { parseDn } from './dn.js';
import type { Entry } from './entry.js';
import { ancestorKeys, metaKey } from './keys.js';
import type { BatchOp, DirectoryStore } from './store.js';

export interface BulkOptions {
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Entries per LevelDB batch. */
  readonly batchEntries?: number;
}

export class BulkLoader {
  private ops: BatchOp[] = [];
  /** Keys added but not yet written, and keys whose write is under way. */
  private pending = new Set<string>();
  private writing = new Set<string>();
  private write: Promise<void> = Promise.resolve();
  private readonly batchEntries: number;

  constructor(private readonly store: DirectoryStore, private readonly options: BulkOptions = {}) {
    this.batchEntries = options.batchEntries ?? 1000;
  }

  private exists = (key: string, known: ReadonlySet<string>): boolean =>
    this.pending.has(key) || this.writing.has(key) || known.has(key);

  /**
   * Adds entries in order; the result for each is undefined (added) or the error that refused
   * it. With `stopAtError`, nothing after the first refused entry is added (or reported).
   */
  async addAll(entries: readonly Entry[], stopAtError = false): Promise<(Error | undefined)[]> {
    const parsed = entries.map((entry) => {
      try {
        const dn = parseDn(entry.dn);
        return { entry, dn, keys: ancestorKeys(dn) };
      } catch (error) {
        return error as Error;
      }
    });
    const lookups = new Set<string>();
    for (const item of parsed) if (!(item instanceof Error)) item.keys.forEach((key) => lookups.add(key));
    const known = await this.store.existing([...lookups].filter((key) => !this.exists(key, new Set())));
    const results: (Error | undefined)[] = [];
    for (const item of parsed) {
      const result = item instanceof Error ? item : this.addOne(item.entry, item.dn, item.keys, known);
      results.push(result);
      if (result && stopAtError) break;
    }
    if (this.pending.size >= this.batchEntries) await this.flush();
    return results;
  }

  async add(entry: Entry): Promise<void> {
    const [error] = await this.addAll([entry]);
    if (error) throw error;
  }

  private addOne(entry: Entry, dn: ReturnType<typeof parseDn>, keys: string[], known: ReadonlySet<string>): Error | undefined {
    try {
      const options = { actor: this.options.actor ?? '', allowNewSuffix: true };
      const plan = this.store.planAdd(entry, dn, keys, options, (key) => this.exists(key, known));
      this.ops.push(...plan.ops);
      this.pending.add(plan.key);
      return undefined;
    } catch (error) {
      return error as Error;
    }
  }

  /** Starts writing the queued entries; waits for the previous write first. */
  async flush(): Promise<void> {
    await this.write;
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    this.writing = this.pending;
    this.pending = new Set();
    this.write = this.store.write(ops, false).then(() => { this.writing = new Set(); });
  }

  /** Flushes and syncs: when this resolves, every queued entry is durable. */
  async finish(): Promise<void> {
    await this.flush();
    await this.write;
    await this.store.write([{ type: 'put', key: metaKey('lastBulkLoad'), value: Buffer.from(new Date().toISOString()) }], true);
  }
}
