/**
 * The store's reads: entry records by dnKey (synchronously where LevelDB answers from its caches,
 * through the cache of recent records, stamped-cache.ts) and a search's candidates in scope,
 * narrowed by an equality index, a presence index or a group's members. Candidates only: the
 * caller evaluates its whole filter on each.
 */
import { parseDn, type Dn } from './dn.js';
import { decodeEntry, decodeValues } from './codec.js';
import { values, type Entry } from './entry.js';
import { EntryRecord } from './entry-record.js';
import {
  childrenRange, dnKey, dnKeyOfIndexKey, entryKey, equalityRange, indexesRange, inSubtree, isDirectChild, presenceRange, subtreeRange,
  valueKey, valueKeyOfIndexKey,
} from './keys.js';
import type { Db } from './level.js';
import type { Memberships } from './memberships.js';
import { normalizeValue } from './normalize.js';
import { typeKey } from './schema.js';
import { BASE_CACHE_KEYS, EQUALITY_CACHE_KEYS, EqualityCache, RecordCache, StampedCache } from './stamped-cache.js';
import { KeptIterators } from './kept-iterators.js';
import { hashKey, type SharedTable } from './shared-table.js';
import { BatchedRecords, type RecordSource } from './record-source.js';

/** The tables shared by the serving threads (shared-table.ts), each when kept. */
export interface SharedTables {
  /** userPassword values by dnKey. */
  readonly passwords?: SharedTable;
  /** The dnKeys under one value of the equality index, by the value's key prefix (equalityRange's gte). */
  readonly equalities?: SharedTable;
  /** Entry records by dnKey (read where the thread's record cache is off). */
  readonly records?: SharedTable;
}

export type Scope = 'base' | 'one' | 'sub';

/**
 * A search term the store can answer from an index instead of scanning: an equality or presence
 * on an indexed attribute; the members of groups (dnKeys: memberOf, through nesting or not);
 * or a known set of entries (dnKeys).
 */
export type IndexHint =
  | { readonly equality: { readonly attribute: string; readonly value: Buffer } }
  | { readonly present: string }
  | { readonly membersOf: readonly string[] }
  | { readonly entries: readonly string[] };

/** What a bind reads of its account (passwordsSync). */
export const PASSWORD_ATTRIBUTE = 'userPassword';

/** Index keys read at once for an equality term (most values index one entry or a few). */
const INDEX_BATCH = 64;
/**
 * Index keys read first for one value: a unique attribute's key and the next value's, which ends
 * the answer (a kept iterator covers the whole index, so a first batch of INDEX_BATCH would read
 * and decode 63 keys of other values).
 */
const FIRST_INDEX_BATCH = 4;

export interface StoreStats {
  entriesRead: number;
  indexKeysRead: number;
  /** Entry records read synchronously and found in the cache of recent records, and those read from LevelDB while it was on. */
  recordCacheHits: number;
  recordCacheMisses: number;
  /** Search bases found in the cache of bases known to exist. */
  baseCacheHits: number;
}

/**
 * A presence search walks every value of the attribute, so an entry with several values comes up
 * several times: it is returned at its first value in index order only, without remembering keys.
 */
function isFirstValue(entry: Entry, attribute: string, current: string): boolean {
  const keys = values(entry, attribute).map((value) => Buffer.from(valueKey(normalizeValue(attribute, value))));
  if (keys.length === 0) return false;
  const first = keys.reduce((a, b) => (Buffer.compare(a, b) <= 0 ? a : b));
  return first.toString() === current;
}

export class EntryReads {
  readonly stats: StoreStats = { entriesRead: 0, indexKeysRead: 0, recordCacheHits: 0, recordCacheMisses: 0, baseCacheHits: 0 };
  /** Recent equality lookups, kept while no write finishes (this thread's). */
  private readonly equalityCache: EqualityCache;
  /** Iterators over the equality index, kept between the lookups that miss the cache (this thread's). */
  private readonly indexIterators: KeptIterators<string>;
  /** The dnKeys of recent search bases that exist, kept while no write finishes (this thread's). */
  private readonly bases: StampedCache<true>;
  /** Recent entry records, kept while no write finishes (this thread's); none when the directory does not fit (level.ts, entryCacheBytes). */
  private readonly recordCache: RecordCache | undefined;

  /**
   * `settled`: the write gate's count of finished writes (a cached answer is good until it moves);
   * `tables`: the userPassword values and the equality answers shared by every thread
   * (shared-table.ts), each if kept.
   */
  constructor(
    private readonly db: Db, private readonly indexed: ReadonlySet<string>, private readonly memberships: Memberships, settled: () => number, entryCacheBytes: number,
    private readonly tables: SharedTables = {},
  ) {
    this.equalityCache = new EqualityCache(settled);
    this.bases = new StampedCache(settled, BASE_CACHE_KEYS);
    this.indexIterators = new KeptIterators(() => db.keys(indexesRange()), settled);
    this.recordCache = entryCacheBytes > 0 ? new RecordCache(settled, entryCacheBytes) : undefined;
  }

  /** One attribute type's values of the entry at this dnKey (undefined: no such entry), without decoding the rest. */
  valuesSync(key: string, description: string): Buffer[] | undefined {
    const record = this.recordSync(key);
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return decodeValues(record, description);
  }

  /** The userPassword values of the entry at this dnKey (undefined: no such entry): from the password table when it holds them. */
  passwordsSync(key: string): Buffer[] | undefined {
    const table = this.tables.passwords;
    if (table === undefined) return this.valuesSync(key, PASSWORD_ATTRIBUTE);
    return table.readThrough(key, () => this.valuesSync(key, PASSWORD_ATTRIBUTE));
  }

  /**
   * The entry record at this dnKey, read synchronously: from the cache of recent records while no
   * write has finished since it was read (stamped-cache.ts), else from LevelDB (and kept).
   */
  recordSync(key: string): Buffer | undefined {
    const cache = this.recordCache;
    if (cache === undefined) return this.db.getSync(entryKey(key));
    const kept = cache.get(key);
    if (kept !== undefined) {
      this.stats.recordCacheHits += 1;
      return kept;
    }
    this.stats.recordCacheMisses += 1;
    const stamp = cache.begin();
    const record = this.db.getSync(entryKey(key));
    if (record !== undefined) cache.keep(key, record, stamp);
    return record;
  }

  /**
   * Whether an entry is at this dnKey, read synchronously: a search's base, asked again and again.
   * Through the record cache when it is on; else a base found is kept until a write finishes
   * (a LevelDB read is about 2 µs: docs/performance.md, "A search's base, and answers known at once").
   */
  existsSync(key: string): boolean {
    if (this.recordCache !== undefined) return this.recordSync(key) !== undefined;
    if (this.bases.get(key) === true) {
      this.stats.baseCacheHits += 1;
      return true;
    }
    const stamp = this.bases.begin();
    if (this.recordSync(key) === undefined) return false;
    this.bases.keep(key, true, stamp);
    return true;
  }

  /** The entry at this dnKey, read synchronously (see recordSync). */
  getByKeySync(key: string): Entry | undefined {
    return this.cachedRecordAt(key)?.entry();
  }

  /**
   * The record at this dnKey for a search: as recordSync reads it, or, where the thread's cache
   * of recent records is off (the directory does not fit), from the record table shared by the
   * threads when it holds it, else from LevelDB (and kept there).
   */
  private sharedRecordSync(key: string): Buffer | undefined {
    const table = this.tables.records;
    if (table === undefined || this.recordCache !== undefined) return this.recordSync(key);
    return table.readThrough(key, () => {
      const record = this.db.getSync(entryKey(key));
      return record === undefined ? undefined : [record];
    })?.[0];
  }

  /** The record at this dnKey, read as sharedRecordSync reads (a thread's or the threads' cache first). */
  private cachedRecordAt(key: string): EntryRecord | undefined {
    const record = this.sharedRecordSync(key);
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return new EntryRecord(record, key);
  }

  /**
   * The entry at this dnKey as LevelDB holds it now (not the record cache: writes read through
   * it under their locks). Read synchronously: a read LevelDB answers from its caches costs a few
   * µs, a hop through the thread pool 0.15-0.2 ms (measured: a synced modify from one client spent
   * 0.18 of its 1.1 ms there).
   */
  async getByKey(key: string): Promise<Entry | undefined> {
    return this.recordAt(key)?.entry();
  }

  /** The entries at these dnKeys (undefined where there is none), in one read. */
  async getManyByKey(keys: readonly string[]): Promise<(Entry | undefined)[]> {
    const records = await this.recordsByKey(keys);
    return records.map((record) => (record === undefined ? undefined : decodeEntry(record)));
  }

  /** The records at these dnKeys (undefined where there is none), in one read. */
  private async recordsByKey(keys: readonly string[]): Promise<(Buffer | undefined)[]> {
    if (keys.length === 0) return [];
    const records = await this.db.getMany(keys.map(entryKey));
    this.stats.entriesRead += records.filter((record) => record !== undefined).length;
    return records;
  }

  /**
   * Entries in scope, narrowed by an index when the hint's attribute is indexed. These are
   * candidates: the caller still evaluates its whole filter on each.
   */
  async *search(base: string | Dn, scope: Scope, hint?: IndexHint): AsyncGenerator<Entry> {
    const baseKey = dnKey(typeof base === 'string' ? parseDn(base) : base);
    for await (const found of this.searchRecords(baseKey, scope, hint)) yield found.entry();
  }

  /**
   * The candidates of `search` under the entry of this dnKey, as records (entry-record.ts): a
   * search decodes only what it needs. It hands over the one generator that reads them (a
   * generator around it would cost its own promises for every entry), or, when they are known
   * without a read that waits (a base search, an equality answer kept), an iterator over them: an
   * async generator costs a promise and a turn of the loop per step, 1.3 KB of a one-entry
   * search's 15 KB of garbage (docs/performance.md, "A search's base, and answers known at once").
   */
  searchRecords(baseKey: string, scope: Scope, hint?: IndexHint): RecordSource {
    if (scope === 'base') return this.base(baseKey);
    if (hint && ('membersOf' in hint || 'entries' in hint)) {
      return this.known('membersOf' in hint ? this.memberships.members(hint.membersOf) : [hint.entries], baseKey, scope);
    }
    const attribute = hint && typeKey('present' in hint ? hint.present : hint.equality.attribute);
    if (!hint || !attribute || !this.indexed.has(attribute) || ('present' in hint && attribute === 'objectclass')) {
      return scope === 'one' ? this.children(baseKey) : this.subtreeRecords(baseKey);
    }
    if ('equality' in hint) return this.equality(equalityRange(attribute, normalizeValue(attribute, hint.equality.value)), baseKey, scope);
    return this.present(attribute, baseKey, scope);
  }

  private base(key: string): IterableIterator<EntryRecord> {
    const found = this.recordAt(key);
    return (found ? [found] : []).values();
  }

  /** The entries in scope under one value's index keys: at once when this thread's cache or the shared equality table has the answer, else read (equal). */
  private equality(range: { gte: string; lt: string }, baseKey: string, scope: Scope): RecordSource {
    const kept = this.equalityCache.get(range.gte) ?? this.sharedAnswer(range.gte);
    return kept ? this.entriesAt(kept, baseKey, scope).values() : this.equal(range, baseKey, scope);
  }

  private async *present(attribute: string, baseKey: string, scope: Scope): AsyncGenerator<EntryRecord> {
    for await (const indexKey of this.db.keys(presenceRange(attribute))) {
      this.stats.indexKeysRead += 1;
      const key = dnKeyOfIndexKey(indexKey);
      if (!this.inScope(key, baseKey, scope)) continue;
      const found = this.recordAt(key);
      if (found && isFirstValue(found.entry(), attribute, valueKeyOfIndexKey(indexKey, attribute))) yield found;
    }
  }

  /** The record at this dnKey as LevelDB holds it now, not the cache of recent records (see getByKey). */
  private recordAt(key: string): EntryRecord | undefined {
    const record = this.db.getSync(entryKey(key));
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return new EntryRecord(record, key);
  }

  /**
   * The entries in scope under the index keys of one value whose answer is not kept (equality):
   * the keys are read INDEX_BATCH at a time (the usual one or few in a single trip to LevelDB's
   * thread) and the answer kept in this thread's cache and the shared equality table
   * (stamped-cache.ts, shared-table.ts); each entry is read synchronously, as a bind reads (one
   * cached read costs less than a hop).
   */
  private async *equal(range: { gte: string; lt: string }, baseKey: string, scope: Scope): AsyncGenerator<EntryRecord> {
    const stamp = this.equalityCache.begin();
    const hash = hashKey(range.gte);
    const mark = this.tables.equalities?.markOf(hash);
    const lease = this.indexIterators.take();
    let ended = false;
    try {
      lease.iterator.seek(range.gte);
      let batch = await this.dnKeysUnder(lease.iterator, range.gte, FIRST_INDEX_BATCH);
      let keys = batch.keys;
      if (!batch.last) {
        batch = await this.dnKeysUnder(lease.iterator, range.gte, INDEX_BATCH);
        keys = keys.concat(batch.keys);
      }
      if (batch.last) this.keepAnswer(range.gte, hash, keys, stamp, mark);
      for (const found of this.entriesAt(keys, baseKey, scope)) yield found;
      while (!batch.last) {
        batch = await this.dnKeysUnder(lease.iterator, range.gte, INDEX_BATCH);
        for (const found of this.entriesAt(batch.keys, baseKey, scope)) yield found;
      }
      ended = true;
    } finally {
      this.indexIterators.give(lease, ended);
    }
  }

  /**
   * The dnKeys the shared equality table holds for this value's prefix, or undefined. Never put in
   * this thread's cache: a write counted settled whose marks are not bumped yet may still find it
   * here, and the cache would keep it past the write's answer.
   */
  private sharedAnswer(prefix: string): string[] | undefined {
    return this.tables.equalities?.lookup(prefix, hashKey(prefix))?.map((key) => key.toString('utf8'));
  }

  /** Keeps a whole answer read after `stamp` and `mark` were taken, in this thread's cache and the shared table. */
  private keepAnswer(prefix: string, hash: number, keys: readonly string[], stamp: number, mark: number | undefined): void {
    this.equalityCache.keep(prefix, keys, stamp);
    if (mark !== undefined && keys.length <= EQUALITY_CACHE_KEYS) this.tables.equalities!.keep(prefix, hash, keys.map((key) => Buffer.from(key)), mark);
  }

  /**
   * The dnKeys of the iterator's next `size` index keys that start with `prefix` (one value's
   * keys: the iterator covers the whole index, so the key after them is read too); `last` when no
   * more of them follow.
   */
  private async dnKeysUnder(iterator: { nextv(size: number): Promise<string[]> }, prefix: string, size: number): Promise<{ keys: string[]; last: boolean }> {
    const indexKeys = await iterator.nextv(size);
    const under = indexKeys.filter((key) => key.startsWith(prefix));
    this.stats.indexKeysRead += under.length;
    return { keys: under.map(dnKeyOfIndexKey), last: under.length < size };
  }

  /** The entries of these dnKeys that exist and are in scope, read synchronously. */
  private entriesAt(keys: readonly string[], baseKey: string, scope: Scope): EntryRecord[] {
    const found: EntryRecord[] = [];
    for (const key of keys) {
      if (!this.inScope(key, baseKey, scope)) continue;
      const record = this.cachedRecordAt(key);
      if (record) found.push(record);
    }
    return found;
  }

  /**
   * The entries of these dnKeys (a group's members, in batches, or one list) that exist and are
   * in scope (a member DN need not name an entry), each read synchronously as entriesAt reads,
   * but only when the walk asks for it (record-source.ts: no promise per entry).
   */
  private known(batches: AsyncIterable<readonly string[]> | Iterable<readonly string[]>, baseKey: string, scope: Scope): BatchedRecords {
    return new BatchedRecords(batches, (key) => {
      this.stats.indexKeysRead += 1;
      return this.inScope(key, baseKey, scope) ? this.cachedRecordAt(key) : undefined;
    });
  }

  private inScope(key: string, baseKey: string, scope: Scope): boolean {
    if (!inSubtree(key, baseKey)) return false;
    if (scope === 'sub') return true;
    return isDirectChild(key, baseKey);
  }

  private async *children(parentKey: string): AsyncGenerator<EntryRecord> {
    for await (const childDnKey of this.db.values(childrenRange(parentKey))) {
      const found = this.recordAt(childDnKey.toString());
      if (found) yield found;
    }
  }

  /** The dnKeys of the entry `key` and everything below it, parents before children: at most `limit` (0: all). */
  async subtreeKeys(key: string, limit = 0): Promise<string[]> {
    const keys: string[] = [];
    for await (const found of this.db.keys({ ...subtreeRange(key), ...(limit > 0 && { limit }) })) keys.push(found.slice(2));
    return keys;
  }

  /** The entry `key` and everything below it, parents before children. */
  async *subtree(key: string): AsyncGenerator<Entry> {
    for await (const found of this.subtreeRecords(key)) yield found.entry();
  }

  private async *subtreeRecords(key: string): AsyncGenerator<EntryRecord> {
    for await (const record of this.db.values(subtreeRange(key))) {
      this.stats.entriesRead += 1;
      yield new EntryRecord(record, undefined);
    }
  }
}
