/**
 * Bulk loading for offline import (like slapadd): entries come in chunks, planned (bulk-plan.ts:
 * here, or by the caller in worker threads); one read per chunk tells which of their keys exist
 * (into an empty database, only of the keys a filter of the entries placed so far may hold:
 * key-filter.ts), entries are checked in order against that and the entries not yet on disk,
 * and written in large unsynced batches while the next chunk is prepared. `finish` ends with a
 * synced write, so everything is on disk when it resolves.
 *
 * Before its first batch a load marks the database (UNFINISHED_LOAD, synced), and `finish`
 * removes the mark in its last write: a load killed, or cut short by an I/O error, leaves the
 * mark, and import-ldif and serve say that the database holds an unfinished load. (A load that
 * stops at a bad entry ends normally: what it loaded before is kept, as import-ldif reports.)
 *
 * What it stores into is a BulkTarget: a DirectoryStore (LevelDB), or the entries table of a
 * PostgreSQL store (postgres/table.ts), which keeps the entry records and naming contexts of the
 * operations and leaves the derived keys to the nodes.
 */
import { parseDn } from './dn.js';
import { normalizeDn } from './normalize.js';
import type { Entry } from './entry.js';
import { metaKey, suffixKey } from './keys.js';
import { alreadyExists, del, needsNewSuffix, put, type BatchOp } from './batch-ops.js';
import { asError } from '../errors.js';
import { planBulkEntry, type BulkPlan, type PlanContext } from './bulk-plan.js';
import { KeyFilter } from './key-filter.js';

interface BulkOptions {
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Entries per LevelDB batch. */
  readonly batchEntries?: number;
  /**
   * DNs that may start a naming context (entries without a parent). Besides these, only the
   * first parentless entry of a load into a database without naming contexts may.
   */
  readonly suffixes?: readonly string[];
  /** Check each entry against the schema in force (default true; import-ldif --no-schema-check: false). */
  readonly schemaCheck?: boolean;
}

/** What a bulk load needs of where it stores (a DirectoryStore has it all). */
export interface BulkTarget {
  /** The indexed attributes whose index keys the operations carry. */
  readonly indexed: ReadonlySet<string>;
  hasEntries(): Promise<boolean>;
  /** The naming contexts' DNs. */
  suffixes(): Promise<string[]>;
  /** Which of these dnKeys exist. */
  existing(keys: readonly string[]): Promise<Set<string>>;
  write(ops: readonly BatchOp[], sync: boolean): Promise<void>;
  /** Called once every entry is written, before the load's last (synced) write: a SortedLoad merges its runs here. */
  complete?(): Promise<void>;
}

/** The meta name (getMeta; its value: when the load started) of a load that has not ended. */
export const UNFINISHED_LOAD = 'unfinishedLoad';
const UNFINISHED_KEY = metaKey(UNFINISHED_LOAD);

export class BulkLoader {
  private ops: BatchOp[] = [];
  private marked = false;
  /** Keys added but not yet written, and keys of the batch being written (until the next flush). */
  private pending = new Set<string>();
  private writing = new Set<string>();
  private write: Promise<void> = Promise.resolve();
  private writeError: unknown;
  private readonly batchEntries: number;
  private readonly suffixes: Set<string>;
  /** May the next parentless entry start a naming context without being listed? */
  private firstSuffixFree: boolean | undefined;
  /**
   * Into a database without entries: every entry placed so far. A key it does not hold is known
   * to be absent without a read. Undefined until the first chunk, and when the database had entries.
   */
  private placed: KeyFilter | undefined | false;

  constructor(private readonly store: BulkTarget, private readonly options: BulkOptions = {}) {
    this.batchEntries = options.batchEntries ?? 1000;
    this.suffixes = new Set((options.suffixes ?? []).map((dn) => normalizeDn(dn)));
  }

  /** How entries are planned for this loader (planBulkEntry), here or in a worker thread. */
  get planContext(): PlanContext {
    return { actor: this.options.actor ?? '', indexed: this.store.indexed, schemaCheck: this.options.schemaCheck !== false };
  }

  private exists(key: string, known: ReadonlySet<string>): boolean {
    return this.pending.has(key) || this.writing.has(key) || known.has(key);
  }

  /**
   * Adds entries in order; the result for each is undefined (added) or the error that refused
   * it. With `stopAtError`, nothing after the first refused entry is added (or reported).
   */
  addAll(entries: readonly Entry[], stopAtError = false): Promise<(Error | undefined)[]> {
    const context = this.planContext;
    return this.placeAll(entries.map((entry) => {
      try {
        return planBulkEntry(entry, context);
      } catch (error) {
        return asError(error);
      }
    }), stopAtError);
  }

  /** As addAll, for entries already planned (an Error in place of one that could not be). */
  async placeAll(plans: readonly (BulkPlan | Error)[], stopAtError = false): Promise<(Error | undefined)[]> {
    this.firstSuffixFree ??= (await this.store.suffixes()).length === 0;
    this.placed ??= (await this.store.hasEntries()) ? false : new KeyFilter();
    const known = await this.store.existing(this.unknownKeys(plans));
    const results: (Error | undefined)[] = [];
    for (const plan of plans) {
      const result = plan instanceof Error ? plan : this.place(plan, known);
      results.push(result);
      if (result && stopAtError) break;
    }
    if (this.pending.size >= this.batchEntries) await this.flush();
    return results;
  }

  private unknownKeys(plans: readonly (BulkPlan | Error)[]): string[] {
    const lookups = new Set<string>();
    for (const plan of plans) {
      if (plan instanceof Error) continue;
      for (const key of plan.keys) if (this.mightExist(key)) lookups.add(key);
    }
    return [...lookups];
  }

  /** Whether a key needs a read to know if it exists: not queued here, and not known absent. */
  private mightExist(key: string): boolean {
    if (this.pending.has(key) || this.writing.has(key)) return false;
    return this.placed === false || this.placed === undefined || this.placed.mightHold(key);
  }

  async add(entry: Entry): Promise<void> {
    const [error] = await this.addAll([entry]);
    if (error) throw error;
  }

  private mayStartSuffix(dn: string): boolean {
    return this.firstSuffixFree === true || this.suffixes.has(normalizeDn(dn));
  }

  /** Checks a planned entry against what exists (a duplicate, a missing parent) and queues its operations. */
  private place(plan: BulkPlan, known: ReadonlySet<string>): Error | undefined {
    try {
      const exists = (key: string): boolean => this.exists(key, known);
      const [key, parentKey] = plan.keys as [string, string?];
      if (exists(key)) return alreadyExists(plan.dn);
      const newSuffix = parentKey !== undefined && exists(parentKey) ? false
        : needsNewSuffix(parseDn(plan.dn), plan.keys, this.mayStartSuffix(plan.dn), exists);
      for (const op of plan.ops) this.ops.push(op);
      if (newSuffix) {
        this.ops.push(put(suffixKey(key)));
        this.firstSuffixFree = false;
      }
      this.pending.add(key);
      if (this.placed) this.placed.add(key);
      return undefined;
    } catch (error) {
      return asError(error);
    }
  }

  /** Starts writing the queued entries, after the previous write has finished. */
  async flush(): Promise<void> {
    await this.write;
    if (this.writeError) throw this.writeError;
    if (this.ops.length === 0) return;
    if (!this.marked) {
      this.marked = true;
      await this.store.write([put(UNFINISHED_KEY, Buffer.from(new Date().toISOString()))], true);
    }
    const ops = this.ops;
    this.ops = [];
    this.writing = this.pending;
    this.pending = new Set();
    this.write = this.store.write(ops, false).catch((error: unknown) => { this.writeError = error; });
  }

  /** Flushes and syncs: when this resolves, every queued entry is durable. */
  async finish(): Promise<void> {
    await this.flush();
    await this.write;
    if (this.writeError) throw this.writeError;
    await this.store.complete?.();
    await this.store.write([del(UNFINISHED_KEY), put(metaKey('lastBulkLoad'), Buffer.from(new Date().toISOString()))], true);
  }
}
