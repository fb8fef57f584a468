/**
 * The applier's writes into the node's LevelDB, grouped (applier.ts): while one LevelDB batch is
 * being written, the transactions the stream brings meanwhile are made ready and queued, and go
 * in the next batch together, in their order, with the position after the last. One write in
 * flight at a time keeps the copy a prefix of the store's history; grouping lets it follow
 * many writers (each transaction alone cost a trip to LevelDB's thread, one after another).
 *
 * A transaction is made ready against the copy as it will be once the queue is written: the
 * records of entries changed by queued transactions are kept here (the overlay) until written.
 * When a write fails, the queue is dropped (`failed`): the applier streams again from `position`.
 */
import { metaKey } from '../keys.js';
import { put, type BatchOp } from '../batch-ops.js';
import { localBatch, settingOps, type EntryRow } from './changes.js';
import { formatLsn } from './lsn.js';

/** What a queued transaction carries. */
export interface QueuedTransaction {
  readonly entries: ReadonlyMap<string, EntryRow | null>;
  readonly settings: ReadonlyMap<string, string | null>;
  readonly tokens: readonly string[];
}

/** A transaction once written: its entries and tokens. */
export interface Written {
  readonly keys: readonly string[];
  readonly tokens: readonly string[];
}

/** The part of the local copy the queue writes to. */
export interface QueueTarget {
  readonly indexed: ReadonlySet<string>;
  records(keys: readonly string[]): Promise<(Buffer | undefined)[]>;
  writeLocal(ops: readonly BatchOp[], sync: boolean): Promise<void>;
}

interface Ready extends Written {
  readonly ops: readonly BatchOp[];
  readonly end: bigint | undefined;
  readonly id: number;
}

/** Transactions queued at most; past it the stream waits for the write in flight. */
const MAX_QUEUED = 512;

export class ApplyQueue {
  /** The position the copy holds on disk (the last batch written). */
  position = 0n;
  /** The position after the last transaction queued. */
  private queued = 0n;
  private ready: Ready[] = [];
  /** By dnKey: the record (null: deleted) an unwritten transaction leaves, and that transaction's id. */
  private readonly overlay = new Map<string, { readonly record: Buffer | null; readonly id: number }>();
  private ids = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly target: QueueTarget, private readonly positionKey: string,
    private readonly written: (transactions: readonly Written[]) => void, private readonly failed: (error: Error) => void,
  ) {}

  /** Starts from `position` with nothing queued (after a failure, or at the start). */
  reset(position: bigint): void {
    this.position = position;
    this.queued = position;
    this.ready = [];
    this.overlay.clear();
  }

  /** Moves the position to `position` when nothing is queued or being written and it is further on (the stream is idle there). */
  advance(position: bigint): void {
    if (!this.idle || position <= this.position) return;
    this.position = position;
    this.queued = position;
  }

  /** Whether an entry is changed by a transaction not yet written. */
  holds(key: string): boolean {
    return this.overlay.has(key);
  }

  /** Is nothing queued or being written? */
  get idle(): boolean {
    return this.writing === undefined && this.ready.length === 0;
  }

  /** Queues a transaction ending at `end` (undefined: a mark with tokens only, applied after everything before it). */
  async add(transaction: QueuedTransaction, end: bigint | undefined): Promise<void> {
    if (end !== undefined && end <= this.queued) return; // sent again after a restart: applied already
    if (this.ready.length >= MAX_QUEUED) await this.writing;
    const keys = [...transaction.entries.keys()];
    const before = await this.recordsBefore(keys);
    const ops = [...localBatch(transaction.entries, before, this.target.indexed), ...settingOps(transaction.settings)];
    const id = (this.ids += 1);
    for (const [key, row] of transaction.entries) this.overlay.set(key, { record: row?.record ?? null, id });
    if (end !== undefined) this.queued = end;
    this.ready.push({ keys, tokens: transaction.tokens, ops, end, id });
    this.writing ??= this.writeAll();
  }

  /** Resolves once nothing is queued or being written. */
  async drained(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** The records of these entries as the queue leaves them: the overlay's, else the copy's. */
  private async recordsBefore(keys: readonly string[]): Promise<Map<string, Buffer | undefined>> {
    const unqueued = keys.filter((key) => !this.overlay.has(key));
    const stored = await this.target.records(unqueued);
    const before = new Map(unqueued.map((key, i) => [key, stored[i]]));
    for (const key of keys) {
      const queued = this.overlay.get(key);
      if (queued) before.set(key, queued.record ?? undefined);
    }
    return before;
  }

  private async writeAll(): Promise<void> {
    try {
      while (this.ready.length > 0) {
        const batch = this.ready;
        this.ready = [];
        await this.writeBatch(batch);
      }
    } catch (error) {
      this.failed(error as Error);
    } finally {
      this.writing = undefined;
    }
  }

  private async writeBatch(batch: readonly Ready[]): Promise<void> {
    const ends = batch.map((ready) => ready.end).filter((end): end is bigint => end !== undefined);
    const last = ends.at(-1);
    const ops = batch.flatMap((ready) => ready.ops);
    if (last !== undefined) ops.push(put(metaKey(this.positionKey), Buffer.from(formatLsn(last))));
    if (ops.length > 0) await this.target.writeLocal(ops, false);
    if (last !== undefined) this.position = last;
    const newest = batch.at(-1)!.id;
    for (const [key, queued] of this.overlay) if (queued.id <= newest) this.overlay.delete(key);
    this.written(batch);
  }
}
