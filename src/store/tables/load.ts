/**
 * Writes a whole LevelDB database as table files from records in key order, and a descriptor
 * naming them, without LevelDB: how a bulk load into an empty database (sorted-load.ts) stores
 * its merged runs. Every table goes to the last level (6), ranges apart, so LevelDB has nothing
 * to merge or compact after; every key has sequence number 1. Tables and descriptor get file
 * numbers above every file in the directory, and the descriptor says to replay no log: once
 * CURRENT names it, LevelDB's next open deletes the files it no longer lists (the old tables,
 * logs and MANIFEST). Until then the database is as it was, so a load killed here loses nothing
 * that was there before.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../errors.js';
import type { RunOp } from '../run-files.js';
import { syncDirectory, tableName, writeDescriptor } from './descriptor.js';
import { TableFile, valueTag, type TableMeta } from './table-file.js';

/** The level the tables go to: LevelDB's last (its config::kNumLevels is 7). */
const LEVEL = 6;
const SEQUENCE = 1;
/**
 * A table is closed once it holds this much: about what a load through LevelDB left (its 256 MiB
 * memtables written out, 117 MB each). Binds over a million users read 32 MiB tables at 0.79x-1.15x
 * the rate of those (mean 0.90x), 128 MiB ones at 0.90x-1.02x (mean 0.95x): within the machine's
 * spread, the larger kept (docs/performance.md, "LevelDB's tables written by the load itself").
 */
export const TABLE_BYTES = 128 << 20;
const LEVELDB_FILE = /^(?:(\d+)\.(?:ldb|sst|log|dbtmp)|MANIFEST-(\d+))$/;

/** A key comes after the one before it in JavaScript's order but not in LevelDB's (bytes of UTF-8): the load goes through LevelDB instead. */
export class KeyOrderError extends StoreError {}

/** The file number above every LevelDB file in `dir`. */
export function nextFileNumber(dir: string): number {
  let highest = 0;
  for (const name of readdirSync(dir)) {
    const match = LEVELDB_FILE.exec(name);
    if (match) highest = Math.max(highest, Number(match[1] ?? match[2]));
  }
  return highest + 1;
}

/**
 * Makes `tables` (in key order, from one TableLoad or from several over ranges in order) the
 * whole database: a descriptor naming them, numbered above every file in the directory. Throws
 * KeyOrderError, changing nothing, when two tables' keys overlap as bytes.
 */
export function describeLoad(dir: string, tables: readonly TableMeta[]): void {
  for (let i = 1; i < tables.length; i += 1) {
    if (Buffer.compare(userKey(tables[i - 1]!.largest), userKey(tables[i]!.smallest)) >= 0) {
      throw new KeyOrderError('the ranges of the load overlap as UTF-8 bytes');
    }
  }
  syncDirectory(dir);
  let number = nextFileNumber(dir); // the tables are in the directory
  const manifest = number++;
  const logNumber = number++;
  const levels = tables.map((table) => ({ level: LEVEL, table }));
  writeDescriptor(dir, { number: manifest, logNumber, nextFile: number, lastSequence: SEQUENCE, tables: levels });
}

const userKey = (internalKey: Buffer): Buffer => internalKey.subarray(0, internalKey.length - 8);

/** Removes these tables (a load that failed). */
export function removeTables(dir: string, tables: readonly TableMeta[]): void {
  for (const { number } of tables) rmSync(join(dir, tableName(number)), { force: true });
}

/** Adds the runs' operations and the records (both in key order) to the load; a run's operation after a record of its key. */
export function addMerged(load: TableLoad, records: readonly RunOp[], batches: Iterable<RunOp[]>): void {
  let next = 0;
  for (const batch of batches) {
    for (const op of batch) {
      while (next < records.length && records[next]!.key <= op.key) load.add(records[next]!.key, records[next++]!.value);
      load.add(op.key, op.value);
    }
  }
  for (; next < records.length; next += 1) load.add(records[next]!.key, records[next]!.value);
}

/**
 * A database being written as tables. `add` takes records in key order (JavaScript's); a key
 * given again replaces its value (the last one wins, as in a batch).
 */
export class TableLoad {
  private number: number;
  private readonly tables: TableMeta[] = [];
  private table: TableFile | undefined;
  private pendingKey: string | undefined;
  private pendingValue: Uint8Array = Buffer.alloc(0);
  private scratch = Buffer.allocUnsafe(1024);
  private previous = Buffer.allocUnsafe(1024);
  private previousLength = -1;
  private readonly tag = valueTag(SEQUENCE);

  /** Tables are numbered from `firstNumber` on (a load cut into ranges gives each its own numbers). */
  constructor(private readonly dir: string, private readonly tableBytes = TABLE_BYTES, firstNumber = nextFileNumber(dir)) {
    this.number = firstNumber;
  }

  add(key: string, value: Uint8Array): void {
    if (key === this.pendingKey) {
      this.pendingValue = value;
      return;
    }
    if (this.pendingKey !== undefined) this.write(this.pendingKey, this.pendingValue);
    this.pendingKey = key;
    this.pendingValue = value;
  }

  /** Writes the last table: the tables written, in key order. */
  finishTables(): TableMeta[] {
    if (this.pendingKey !== undefined) this.write(this.pendingKey, this.pendingValue);
    this.pendingKey = undefined;
    this.closeTable();
    return this.tables;
  }

  /** Writes the last table and the descriptor: the database is the records added from now on. */
  finish(): void {
    describeLoad(this.dir, this.finishTables());
  }

  /** Removes the tables written (the database stays as it was). */
  abandon(): void {
    this.table?.abandon();
    this.table = undefined;
    removeTables(this.dir, this.tables);
  }

  private write(key: string, value: Uint8Array): void {
    const length = this.encode(key);
    if (!this.afterPrevious(length)) throw new KeyOrderError(`key ${JSON.stringify(key)} sorts differently as UTF-8 bytes`);
    this.table ??= new TableFile(join(this.dir, tableName(this.number)), this.number++);
    this.table.add(this.scratch, length + 8, value);
    if (this.table.size >= this.tableBytes) this.closeTable();
    [this.previous, this.scratch] = [this.scratch, this.previous];
    this.previousLength = length;
  }

  /** Do the first `length` bytes of scratch come after the previous key's, byte by byte? */
  private afterPrevious(length: number): boolean {
    const { previous, scratch, previousLength } = this;
    const limit = Math.min(length, previousLength);
    for (let i = 0; i < limit; i += 1) if (scratch[i] !== previous[i]) return scratch[i]! > previous[i]!;
    return length > previousLength;
  }

  /** The key's UTF-8 and the value tag after it, in scratch: the user key's length. */
  private encode(key: string): number {
    if (key.length * 3 + 8 > this.scratch.length) this.grow(key.length * 3 + 8);
    const scratch = this.scratch;
    let length = 0;
    for (; length < key.length; length += 1) {
      const code = key.charCodeAt(length);
      if (code >= 0x80) {
        length = scratch.write(key, 0, 'utf8');
        break;
      }
      scratch[length] = code;
    }
    for (let i = 0; i < 8; i += 1) scratch[length + i] = this.tag[i]!;
    return length;
  }

  private grow(bytes: number): void {
    this.scratch = Buffer.allocUnsafe(bytes);
    const previous = Buffer.allocUnsafe(bytes);
    this.previous.copy(previous, 0, 0, Math.max(this.previousLength, 0));
    this.previous = previous;
  }

  private closeTable(): void {
    if (!this.table) return;
    this.tables.push(this.table.finish());
    this.table = undefined;
  }
}
