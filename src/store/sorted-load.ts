/**
 * A bulk load into an empty LevelDB written in key order. LevelDB writes each memtable out as a
 * table; tables whose keys overlap are merged again and again as they sink through the levels
 * (a million users in file order: 34-40 s of merging on one core, docs/performance.md). Keys that
 * arrive in order make tables that overlap nothing, which LevelDB places without merging, and
 * leave nothing to compact after the load.
 *
 * So the loader's writes (bulk.ts) go to sorted runs on disk (run-files.ts) in a directory of
 * their own, and `complete` merges them into the database: as LevelDB table files written by a
 * thread per range of keys (tables/), or, where that cannot be done, through LevelDB in key
 * order. The loader still checks every entry exactly, in file order: which dnKeys are placed is
 * kept in a small LevelDB of its own beside the runs (the ledger), written as the runs are, and
 * read where the loader's filter cannot tell.
 * The directory is removed when the load completes (and, if a load was killed, when the next one
 * starts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import type { BatchOp } from './batch-ops.js';
import type { BulkTarget } from './bulk.js';
import { dnKeyOfEntryKey, metaKey } from './keys.js';
import { mergeRuns, RunWriter } from './run-files.js';
import { KeyOrderError } from './tables/load.js';
import { loadInRanges } from './tables/ranges.js';
import { snappyAvailable } from './tables/snappy.js';
import type { DirectoryStore } from './store.js';
import { StoreError } from './errors.js';
import { errorMessage } from '../errors.js';

/** Bytes of operations gathered before a run is sorted and written (native values and heap together). */
const RUN_BYTES = 64 << 20;
/** The ledger's memtable: a million dnKeys take about 60 MB. */
const LEDGER_BUFFER_MB = 16;
/** Operations per write while merging (about 1,000 entries). */
const MERGE_BATCH = 10_000;
/** How many placed dnKeys `existing` keeps once found. */
const FOUND_KEPT = 4096;
/** Where the meta space starts: the keys the database holds before a load, which the entries' keys sort around. */
const META_START = metaKey('');

export class SortedLoad implements BulkTarget {
  private completed = false;
  private readonly found = new Set<string>();
  /** Why the runs could not be written or read: the load stops, its files removed. */
  private failure: StoreError | undefined;

  private constructor(
    private readonly store: DirectoryStore,
    private readonly dir: string,
    private readonly runs: RunWriter,
    private readonly ledger: Level<string, string>,
  ) {}

  /**
   * The target a bulk load into `store` should use: a SortedLoad with its files in `dir` when
   * `wanted` and the database holds no entries, else the store itself. Files a killed load left
   * in `dir` are removed in any case.
   */
  static async over(store: DirectoryStore, dir: string, wanted: boolean, runBytes = RUN_BYTES): Promise<BulkTarget> {
    rmSync(dir, { recursive: true, force: true });
    if (!wanted || (await store.hasEntries())) return store;
    mkdirSync(dir, { recursive: true });
    const ledger = new Level<string, string>(join(dir, 'ledger'), { writeBufferSize: LEDGER_BUFFER_MB << 20 });
    await ledger.open();
    return new SortedLoad(store, dir, new RunWriter(dir, runBytes), ledger);
  }

  get indexed(): ReadonlySet<string> {
    return this.store.indexed;
  }

  hasEntries(): Promise<boolean> {
    return this.store.hasEntries();
  }

  suffixes(): Promise<string[]> {
    return this.store.suffixes();
  }

  /**
   * Which of these dnKeys the load has placed (it starts from a database without entries). The
   * ancestors of every entry are asked about again and again: keys found are kept (the load only
   * adds, so they stay placed), up to FOUND_KEPT of them.
   */
  async existing(keys: readonly string[]): Promise<Set<string>> {
    if (this.failure) throw this.failure;
    const existing = new Set(keys.filter((key) => this.found.has(key)));
    const asked = keys.filter((key) => !existing.has(key));
    const read = asked.length === 0 ? [] : await this.ledger.getMany(asked);
    const placed = asked.filter((_key, i) => read[i] !== undefined);
    if (this.found.size + placed.length > FOUND_KEPT) this.found.clear();
    for (const key of placed) {
      existing.add(key);
      this.found.add(key);
    }
    return existing;
  }

  /** Gathers the operations into the runs (once the load has completed: writes them to the store). */
  async write(ops: readonly BatchOp[], sync: boolean): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.completed) return this.store.write(ops, sync);
    const placed = this.ledger.batch();
    try {
      for (const op of ops) {
        if (op.type !== 'put') throw new Error('a bulk load only adds');
        this.runs.add(op);
        const key = dnKeyOfEntryKey(op.key);
        if (key !== undefined) placed.put(key, '');
      }
      await placed.write();
    } catch (error) {
      throw isFileError(error) ? await this.fail(error) : error;
    }
  }

  /** Stops the load: its files are removed, and the error says where and why, and what to do. */
  private async fail(error: unknown): Promise<StoreError> {
    this.failure ??= new StoreError(`cannot keep the sorted runs of this load in ${this.dir}: ${errorMessage(error)} `
      + '(a load in key order needs free disk of about 2.5 times the LDIF\'s size there; import-ldif --no-sort loads without runs)');
    await this.ledger.close().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
    return this.failure;
  }

  /**
   * Merges the runs into the database in key order, writes its memtable out, and removes the
   * runs and the ledger. Writes after this go straight to the store.
   */
  async complete(): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      this.runs.spill();
      this.completed = true;
      await this.ledger.close();
      if (await this.writeTables()) return;
      await this.store.writeOutMemtable();
      await this.mergeIntoStore();
      await this.store.writeOutMemtable();
    } catch (error) {
      throw isFileError(error) ? await this.fail(error) : error;
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /**
   * Writes the merged runs, with the records the database held, as its tables, a thread per
   * range of keys (tables/ranges.ts). False when the snappy addon is not built, or a key sorts
   * differently as bytes (characters beyond U+FFFF against those from U+E000), and the database
   * is as it was: the runs go through LevelDB then (mergeIntoStore).
   */
  private async writeTables(): Promise<boolean> {
    if (!snappyAvailable()) return false;
    try {
      const runs = { paths: this.runs.runs, marks: this.runs.marks };
      await this.store.rewriteAsTables((dir, records) => loadInRanges(dir, runs, records));
      return true;
    } catch (error) {
      if (error instanceof KeyOrderError) return false;
      throw error;
    }
  }

  /**
   * Writes the merged runs through LevelDB, one batch in flight while the next is merged. When
   * the keys pass the meta space, the memtable is written out first, so that no table spans the
   * keys already stored.
   */
  private async mergeIntoStore(): Promise<void> {
    let writing: Promise<void> = Promise.resolve();
    let pastMeta = false;
    for (const batch of mergeRuns(this.runs.runs, MERGE_BATCH)) {
      await writing;
      const split = pastMeta ? -1 : batch.findIndex((op) => op.key >= META_START);
      if (split !== -1) {
        pastMeta = true;
        if (split > 0) await this.store.write(batch.slice(0, split), false);
        await this.store.writeOutMemtable();
      }
      writing = this.store.write(split > 0 ? batch.slice(split) : batch, false);
    }
    await writing;
  }
}

/** An error of the file system (the runs' files: no space, an I/O error), as Node reports one. */
const isFileError = (error: unknown): boolean => typeof error === 'object' && error !== null && 'syscall' in error;
