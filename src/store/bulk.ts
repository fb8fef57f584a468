/**
 * Bulk loading for offline import (like slapadd): entries are checked in order against the
 * database and the not-yet-flushed ones, then written in large unsynced batches; `finish`
 * ends with a synced write so everything is on disk when it resolves.
 */
import type { Entry } from './entry.js';
import { metaKey } from './keys.js';
import type { BatchOp, DirectoryStore } from './store.js';

export interface BulkOptions {
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Entries per LevelDB batch. */
  readonly batchEntries?: number;
}

export class BulkLoader {
  private ops: BatchOp[] = [];
  private pending = new Set<string>();
  private readonly batchEntries: number;

  constructor(private readonly store: DirectoryStore, private readonly options: BulkOptions = {}) {
    this.batchEntries = options.batchEntries ?? 500;
  }

  /** Checks and queues one entry; throws DirectoryError (parent missing, duplicate, invalid). */
  async add(entry: Entry): Promise<void> {
    const plan = await this.store.planAdd(entry, { actor: this.options.actor ?? '', allowNewSuffix: true }, this.pending);
    this.ops.push(...plan.ops);
    this.pending.add(plan.key);
    if (this.pending.size >= this.batchEntries) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    await this.store.write(ops, false);
    this.pending = new Set();
  }

  /** Flushes and syncs: when this resolves, every queued entry is durable. */
  async finish(): Promise<void> {
    await this.flush();
    await this.store.write([{ type: 'put', key: metaKey('lastBulkLoad'), value: Buffer.from(new Date().toISOString()) }], true);
  }
}
