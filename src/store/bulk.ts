/**
 * Bulk loading for offline import (like slapadd): entries come in chunks; one read per chunk
 * tells which of their keys exist, entries are checked in order against that and the entries
 * not yet on disk, and written in large unsynced batches while the next chunk is prepared.
 * `finish` ends with a synced write, so everything is on disk when it resolves.
 */
import { parseDn, type Dn } from './dn.js';
import { normalizeDn } from './normalize.js';
import type { Entry } from './entry.js';
import { ancestorKeys, metaKey } from './keys.js';
import type { BatchOp, DirectoryStore } from './store.js';
import { asError } from '../errors.js';
import { checkSchema } from './schema/check.js';
import { withStructuralClass } from './schema/enforce.js';
import { currentSchema } from './schema/installed.js';

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

interface Parsed {
  readonly entry: Entry;
  readonly dn: Dn;
  readonly keys: string[];
}

export class BulkLoader {
  private ops: BatchOp[] = [];
  /** Keys added but not yet written, and keys of the batch being written (until the next flush). */
  private pending = new Set<string>();
  private writing = new Set<string>();
  private write: Promise<void> = Promise.resolve();
  private writeError: unknown;
  private readonly batchEntries: number;
  private readonly suffixes: Set<string>;
  /** May the next parentless entry start a naming context without being listed? */
  private firstSuffixFree: boolean | undefined;

  constructor(private readonly store: DirectoryStore, private readonly options: BulkOptions = {}) {
    this.batchEntries = options.batchEntries ?? 1000;
    this.suffixes = new Set((options.suffixes ?? []).map((dn) => normalizeDn(dn)));
  }

  private exists(key: string, known: ReadonlySet<string>): boolean {
    return this.pending.has(key) || this.writing.has(key) || known.has(key);
  }

  /**
   * Adds entries in order; the result for each is undefined (added) or the error that refused
   * it. With `stopAtError`, nothing after the first refused entry is added (or reported).
   */
  async addAll(entries: readonly Entry[], stopAtError = false): Promise<(Error | undefined)[]> {
    this.firstSuffixFree ??= (await this.store.suffixes()).length === 0;
    const parsed = entries.map((entry): Parsed | Error => {
      try {
        const dn = parseDn(entry.dn);
        return { entry, dn, keys: ancestorKeys(dn) };
      } catch (error) {
        return asError(error);
      }
    });
    const known = await this.store.existing(this.unknownKeys(parsed));
    const results: (Error | undefined)[] = [];
    for (const item of parsed) {
      const result = item instanceof Error ? item : this.addOne(item, known);
      results.push(result);
      if (result && stopAtError) break;
    }
    if (this.pending.size >= this.batchEntries) await this.flush();
    return results;
  }

  private unknownKeys(parsed: readonly (Parsed | Error)[]): string[] {
    const lookups = new Set<string>();
    for (const item of parsed) {
      if (item instanceof Error) continue;
      for (const key of item.keys) if (!this.pending.has(key) && !this.writing.has(key)) lookups.add(key);
    }
    return [...lookups];
  }

  async add(entry: Entry): Promise<void> {
    const [error] = await this.addAll([entry]);
    if (error) throw error;
  }

  private mayStartSuffix(item: Parsed): boolean {
    return this.firstSuffixFree === true || this.suffixes.has(normalizeDn(item.dn));
  }

  private addOne(item: Parsed, known: ReadonlySet<string>): Error | undefined {
    try {
      const options = { actor: this.options.actor ?? '', allowNewSuffix: this.mayStartSuffix(item) };
      const entry = this.options.schemaCheck === false ? item.entry : withStructuralClass(item.entry, checkSchema(item.entry, currentSchema()));
      const plan = this.store.planAdd(entry, item.dn, item.keys, options, (key) => this.exists(key, known));
      this.ops.push(...plan.ops);
      this.pending.add(plan.key);
      if (plan.newSuffix) this.firstSuffixFree = false;
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
    await this.store.write([{ type: 'put', key: metaKey('lastBulkLoad'), value: Buffer.from(new Date().toISOString()) }], true);
  }
}
