/**
 * The sources a search walks (reads.ts `searchRecords`, the handler's `walkEntries`): each step is
 * an IteratorResult at once, or a promise of one only when a read must wait. An async generator
 * costs a promise and a turn of the microtask queue for every entry it yields; a group's members
 * come in batches of keys (memberships.ts), and every record of a batch is read synchronously, so
 * only the step that needs the next batch has to wait.
 */
import type { EntryRecord } from './entry-record.js';

/** A search's candidates: read as they come (an async generator), known at once (an iterator), or read in batches (BatchedRecords). */
export type RecordSource = AsyncGenerator<EntryRecord> | IterableIterator<EntryRecord> | BatchedRecords;

/**
 * Closes a search's source: a generator that reads (its LevelDB iterator with it) or a batched
 * one, through the promise returned; an iterator over records already read has nothing to close.
 */
export function closeSource(source: RecordSource): Promise<unknown> | undefined {
  const closing = source.return?.(undefined);
  return closing instanceof Promise ? closing : undefined;
}

type Batches = AsyncIterator<readonly string[]> | Iterator<readonly string[]>;

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The records of batches of dnKeys, each read by `read` (undefined: none there, or out of scope)
 * when the walk asks for it: a long list is read at the walk's pace, its turns of the thread
 * between entries.
 */
export class BatchedRecords implements AsyncIterable<EntryRecord> {
  private readonly batches: Batches;
  private keys: readonly string[] = [];
  private at = 0;

  constructor(batches: AsyncIterable<readonly string[]> | Iterable<readonly string[]>, private readonly read: (key: string) => EntryRecord | undefined) {
    this.batches = Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : batches[Symbol.iterator]();
  }

  /** The next record: at once while the batch in hand lasts, else a promise for the next batch's first. */
  next(): IteratorResult<EntryRecord> | Promise<IteratorResult<EntryRecord>> {
    const found = this.take();
    return found ? { done: false, value: found } : this.nextBatch();
  }

  /** Stops reading (the batches' iterators closed). */
  async return(): Promise<IteratorResult<EntryRecord>> {
    this.keys = [];
    await this.batches.return?.();
    return DONE;
  }

  [Symbol.asyncIterator](): AsyncIterator<EntryRecord> {
    return { next: async () => this.next(), return: () => this.return() };
  }

  private take(): EntryRecord | undefined {
    while (this.at < this.keys.length) {
      const found = this.read(this.keys[this.at++]!);
      if (found) return found;
    }
    return undefined;
  }

  private async nextBatch(): Promise<IteratorResult<EntryRecord>> {
    for (let batch = await this.batches.next(); batch.done !== true; batch = await this.batches.next()) {
      this.keys = batch.value;
      this.at = 0;
      const found = this.take();
      if (found) return { done: false, value: found };
    }
    return DONE;
  }
}
