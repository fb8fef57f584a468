/**
 * The directory store: entries in one LevelDB database, keyed by normalized DN (keys.ts), with
 * equality indexes (which answer presence too) and a group's membership keys (groups.ts) written
 * in the same atomic batch as the entry.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { formatDn, parseDn, type Dn, type Rdn } from './dn.js';
import { decodeEntry, decodeValues, encodeEntry } from './codec.js';
import { values, type Entry } from './entry.js';
import { DirectoryError, StaleCopy, StoreError } from './errors.js';
import { membershipChanges, membershipRecords, withoutMemberOf } from './groups.js';
import { DEFAULT_INDEXES, indexChanges, indexKeys, normalizeIndexList } from './indexes.js';
import {
  ancestorKeys, childKey, childrenRange, dnKey, dnKeyOfIndexKey, entriesRange, entryKey, equalityRange, inSubtree, metaKey, presenceRange,
  valueKey, valueKeyOfIndexKey,
  subtreeRange, suffixKey, ALL_KEYS, ENTRY_KEYS, isDirectChild, suffixesRange,
} from './keys.js';
import { normalizeRdn, normalizeValue } from './normalize.js';
import { Memberships } from './memberships.js';
import { EqualityCache, RecordCache } from './stamped-cache.js';
import { KeyedMutex, SharedSlots, type HeldLocks } from './mutex.js';
import { withCreationAttributes } from './operational.js';
import { WriteRecovery, type RecoveryDb, type StoreLog } from './recovery.js';
import { typeKey } from './schema.js';
import { upgradeToFormat2 } from './upgrade.js';
import { checkEntry } from './validate.js';
import { FULL, WriteGate, type Pass } from './write-gate.js';
import { errorCode, errorMessage, asError } from '../errors.js';

/** The on-disk layout this code reads and writes (2: with the group keys; a format-1 database is upgraded on open, upgrade.ts). */
export const STORE_FORMAT = '2';

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

export interface OpenOptions {
  readonly createIfMissing?: boolean;
  /** Attributes to index, for a new database (an existing one keeps its own). */
  readonly indexes?: readonly string[];
  /** LevelDB's block cache in MiB (default 8; import uses more). Part of the server's resident memory. */
  readonly cacheMb?: number;
  /** Entry records kept per thread in MiB, besides LevelDB's cache (default 16, 0: none; stamped-cache.ts). */
  readonly entryCacheMb?: number;
  /** LevelDB's write buffer (memtable) in MiB (default 32; a bulk load uses more: fewer tables to merge while it runs). */
  readonly writeBufferMb?: number;
  /**
   * Several threads of this process serve the database (`serve --threads`): each opens it with
   * this set (classic-level shares one LevelDB between them) and the same `sharedLocks`
   * (SharedSlots' buffer, `owner` numbering the thread from 1), so writes to an entry take turns
   * across threads too, and the same `writeGate` (WriteGate's buffer), so a failed write stops
   * the writes of every thread.
   */
  readonly threads?: { readonly sharedLocks: SharedArrayBuffer; readonly writeGate: SharedArrayBuffer; readonly owner: number };
  /** Where a failed write, and writes resuming, are told (docs/durability.md). */
  readonly log?: StoreLog;
}

export const DEFAULT_CACHE_MB = 8;
export const DEFAULT_ENTRY_CACHE_MB = 16;

/** Entries read at once for a search whose candidates are known keys (the members of groups). */
const KNOWN_BATCH = 64;

/** Entry records read synchronously at most by records(); more are read in one getMany. */
const SYNC_RECORDS = 8;

/** Index keys read at once for an equality term (most values index one entry or a few). */
const INDEX_BATCH = 64;

export interface AddOptions {
  /** creatorsName/modifiersName. */
  readonly actor?: string;
  /** Acknowledge only once the write is on disk (fsync). Default true. */
  readonly sync?: boolean;
  /** An entry whose parent is missing may start a new naming context if no ancestor exists. */
  readonly allowNewSuffix?: boolean;
  /** Runs on the entry as it will be stored, under the locks, before the write: a throw refuses the add. */
  readonly check?: (entry: Entry) => void | Promise<void>;
}

interface PlannedAdd {
  readonly key: string;
  readonly ops: BatchOp[];
  /** The entry as it will be stored (operational attributes added). */
  readonly stored: Entry;
  /** The entry starts a naming context. */
  readonly newSuffix: boolean;
}

interface StoreStats {
  entriesRead: number;
  indexKeysRead: number;
  /** Entry records read synchronously and found in the cache of recent records, and those read from LevelDB while it was on. */
  recordCacheHits: number;
  recordCacheMisses: number;
}

type Db = Level<string, Buffer>;
export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

const EMPTY = Buffer.alloc(0);
export const put = (key: string, value: Buffer = EMPTY): BatchOp => ({ type: 'put', key, value });
export const del = (key: string): BatchOp => ({ type: 'del', key });

/** The entry record at `key` and its one-level index key under `parentKey` (the child's dnKey as value). */
export function placementOps(key: string, parentKey: string, rdn: Rdn, entry: Entry): BatchOp[] {
  return [put(entryKey(key), encodeEntry(entry)), put(childKey(parentKey, normalizeRdn(rdn)), Buffer.from(key))];
}

/** The removal of what {@link placementOps} wrote. */
export function removalOps(key: string, parentKey: string, rdn: Rdn): BatchOp[] {
  return [del(entryKey(key)), del(childKey(parentKey, normalizeRdn(rdn)))];
}

/** The entry as a new entry is stored: memberOf dropped, the operational attributes it lacks added. */
export function storedForm(entry: Entry, actor: string): Entry {
  return withCreationAttributes(withoutMemberOf(entry), actor);
}

/**
 * What storing a new entry writes, the naming-context key aside: its record, its one-level
 * index key, its index keys and its group keys. Pure: the same entry gives the same operations.
 */
export function entryOps(stored: Entry, dn: Dn, keys: readonly string[], indexed: ReadonlySet<string>): BatchOp[] {
  const [key, parentKey = ''] = keys as [string, string?];
  const ops = placementOps(key, parentKey, dn[0]!, stored);
  for (const indexKey of indexKeys(stored, key, indexed)) ops.push(put(indexKey));
  for (const [derived, value] of membershipRecords(stored, key)) ops.push(put(derived, value));
  return ops;
}

/** What storing `after` at `key` in place of `before` writes: its record (`record`), and its index and group keys' changes. Pure. */
export function replacementOps(indexed: ReadonlySet<string>, key: string, before: Entry, after: Entry, record: Buffer): BatchOp[] {
  return [put(entryKey(key), record), ...indexChanges(indexed, key, before, key, after), ...membershipChanges(before, key, after, key)];
}

/** What removing the entry stored at `key` deletes: its record, one-level and naming-context keys, index and group keys. Pure. */
export function deletionOps(entry: Entry, key: string, parentKey: string, rdn: Rdn, indexed: ReadonlySet<string>): BatchOp[] {
  const ops = [...removalOps(key, parentKey, rdn), del(suffixKey(key)), ...membershipChanges(entry, key, undefined, key)];
  for (const indexKey of indexKeys(entry, key, indexed)) ops.push(del(indexKey));
  return ops;
}

export function alreadyExists(dn: string): DirectoryError {
  return new DirectoryError('entryAlreadyExists', `entry ${dn} already exists`);
}

/**
 * Whether an entry whose own key is free starts a naming context: false when its parent exists;
 * true when no ancestor exists and it may; otherwise noSuchObject, matchedDN the closest ancestor.
 */
export function needsNewSuffix(dn: Dn, keys: readonly string[], allowNewSuffix: boolean, exists: (key: string) => boolean): boolean {
  if (dn.length > 1 && exists(keys[1]!)) return false;
  const ancestor = keys.findIndex((key, depth) => depth > 0 && exists(key));
  if (allowNewSuffix && ancestor === -1) return true;
  const reason = dn.length > 1 ? `parent entry ${formatDn(dn.slice(1))} does not exist`
    : `${formatDn(dn)} has no parent and naming contexts cannot be added here`;
  throw new DirectoryError('noSuchObject', reason, ancestor === -1 ? '' : formatDn(dn.slice(ancestor)));
}

export const DEFAULT_WRITE_BUFFER_MB = 32;

/**
 * What an entry record takes in the entry cache against its compressed size on disk, about (make-ldif
 * users: 10.0 MiB of records, 4.6 MiB on disk, 160 bytes more each in the cache).
 */
const CACHED_PER_STORED = 2.5;

/**
 * The entry cache's size: `mb` MiB when every entry record would fit in it (LevelDB's estimate of
 * their size on disk, times CACHED_PER_STORED), else none. A cache holding only part of the records
 * read at random pushes out records that will be read again, and costs its whole size in resident
 * memory (measured: 10,000 users through 8 MiB, binds 4-12% slower; 100,000 users, 8 MiB, 22-34 MB
 * more RSS).
 */
export async function entryCacheBytes(db: Db, mb: number): Promise<number> {
  const bytes = mb * 2 ** 20;
  if (bytes === 0) return 0;
  const sized = db as unknown as { approximateSize(start: string, end: string): Promise<number> }; // classic-level's, under level's type
  return (await sized.approximateSize(ENTRY_KEYS.gte, ENTRY_KEYS.lt)) * CACHED_PER_STORED <= bytes ? bytes : 0;
}

async function openLevel(dir: string, options: OpenOptions): Promise<Db> {
  const createIfMissing = options.createIfMissing ?? true;
  if (!createIfMissing && !existsSync(dir)) throw new StoreError(`there is no database at ${dir}`);
  const db = new Level<string, Buffer>(dir, {
    keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing, maxFileSize: 8 << 20,
    writeBufferSize: (options.writeBufferMb ?? DEFAULT_WRITE_BUFFER_MB) << 20, cacheSize: (options.cacheMb ?? DEFAULT_CACHE_MB) << 20,
  });
  const multithreading = options.threads !== undefined;
  try {
    await db.open({ multithreading } as object);
    return db;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') {
      throw new StoreError(`the database ${dir} is in use by another process (is a leveldap server running on it?)`);
    }
    throw new StoreError(`cannot open the database ${dir}: ${cause?.message ?? errorMessage(error)}`);
  }
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

/**
 * Where writes are committed when the database is a node's local copy of another store (the
 * PostgreSQL system of record, postgres/): a write's batch goes there instead of to LevelDB, and
 * resolves once the local copy holds it. `holding` is what the write holds (its locks, and the
 * `clock` when it took them); StaleCopy when the local copy it read was behind.
 */
export interface SystemOfRecord {
  /** Runs a write's critical section, its entry locks taken (KeyedMutex.inside): the record may lock the same entries first. */
  around<T>(keys: readonly string[], critical: () => Promise<T>, held: HeldLocks): Promise<T>;
  commit(ops: readonly BatchOp[], held: HeldLocks | undefined): Promise<void>;
  /** Resolves once the local copy holds every write committed before the call. */
  catchUp(): Promise<void>;
  /** A number that grows whenever the local copy changes (KeyedMutex's clock). */
  readonly clock: number;
  /** Why reads of the local copy are refused now (too stale), or undefined. */
  staleReason(): string | undefined;
  /** Failed binds as every node sees them (lockout), when the system of record shares them. */
  readonly failures?: SharedFailures;
  /** What monitoring shows of it (the store counts the writes it runs again). */
  stats(): Omit<RecordStats, 'staleRetries'>;
}

/** Upper bounds (seconds) of the buckets of RecordStats.applyWait. */
export const APPLY_WAIT_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 5] as const;

/** A system of record's counters since start. */
export interface RecordStats {
  /** Writes committed. */
  readonly commits: number;
  /** Writes run again because the local copy was behind (StaleCopy). */
  readonly staleRetries: number;
  /** How long committed writes waited for the local copy to apply them: per bucket (APPLY_WAIT_BUCKETS, then +Inf), sum in seconds, count. */
  readonly applyWait: { readonly buckets: readonly number[]; readonly sum: number; readonly count: number };
  /** Seconds since the system of record last answered the local copy's stream. */
  readonly silentSeconds: number;
}

/** Failed binds recorded where every node of a store counts them (lockout.ts; postgres/failures.ts). */
export interface SharedFailures {
  /** Records a failure of the account at `at` (ms); resolves with the other nodes' failures after `since` (ms). */
  failed(account: string, at: number, since: number): Promise<number[]>;
  /** Forgets the account's failures, after a success (in the background). */
  cleared(account: string): void;
}

/** Tries of a write whose local copy was behind (StaleCopy), each after catching up. */
const STALE_TRIES = 5;

/** Errors of a write that never reached LevelDB. */
const NOT_WRITTEN = new Set(['LEVEL_DATABASE_NOT_OPEN', 'LEVEL_BATCH_NOT_OPEN']);

const SUSPENDED = 'writes are suspended after a database write error (see the server log); reads go on';

export class DirectoryStore {
  readonly stats: StoreStats = { entriesRead: 0, indexKeysRead: 0, recordCacheHits: 0, recordCacheMisses: 0 };
  /** Per-entry write locks (by dnKey), shared by every write (writes.ts). */
  readonly locks: KeyedMutex;
  /** Which writes may be acknowledged (shared by every thread of the process). */
  readonly gate: WriteGate;
  /** Group memberships, read from the keys group writes keep (memberships.ts). */
  readonly memberships: Memberships;
  private readonly recovery: WriteRecovery;
  /** Where writes go when this database is a copy (attach). */
  private record: SystemOfRecord | undefined;
  /** Writes run again after their local copy was found behind (retrying). */
  staleRetries = 0;
  /** Recent equality lookups, kept while no write finishes (this thread's). */
  private readonly equalityCache: EqualityCache;
  /** Recent entry records, kept while no write finishes (this thread's); none when the directory does not fit (entryCacheBytes). */
  private readonly recordCache: RecordCache | undefined;
  /** The entry cache's size in bytes; 0 when it is off (--entry-cache-mb 0, or the directory does not fit). */
  readonly entryCacheBytes: number;

  private constructor(private readonly db: Db, readonly dir: string, readonly indexed: ReadonlySet<string>, options: OpenOptions, entryCacheBytes: number) {
    const { threads } = options;
    this.locks = new KeyedMutex(threads && new SharedSlots(threads.sharedLocks, threads.owner), () => this.record?.clock ?? 0);
    this.gate = threads ? new WriteGate(threads.writeGate, threads.owner) : new WriteGate();
    this.recovery = new WriteRecovery(db as unknown as RecoveryDb, dir, this.gate, options.log);
    this.memberships = new Memberships(db);
    this.equalityCache = new EqualityCache(() => this.gate.settled);
    this.recordCache = entryCacheBytes > 0 ? new RecordCache(() => this.gate.settled, entryCacheBytes) : undefined;
    this.entryCacheBytes = entryCacheBytes;
  }

  /** Opens (or creates) the database in `dir`; refuses unknown formats and databases in use. */
  static async open(dir: string, options: OpenOptions = {}): Promise<DirectoryStore> {
    const db = await openLevel(dir, options);
    try {
      const indexes = await DirectoryStore.checkFormat(db, dir, options.indexes ?? DEFAULT_INDEXES, options.log);
      return new DirectoryStore(db, dir, new Set(indexes), options, await entryCacheBytes(db, options.entryCacheMb ?? DEFAULT_ENTRY_CACHE_MB));
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  private static async checkFormat(db: Db, dir: string, wantedIndexes: readonly string[], log?: StoreLog): Promise<string[]> {
    const format = (await db.get(metaKey('format')))?.toString();
    if (format === undefined) {
      for await (const _key of db.keys({ limit: 1 })) throw new StoreError(`${dir} is not a leveldap database`);
      const indexes = normalizeIndexList(wantedIndexes);
      await db.batch([
        { type: 'put', key: metaKey('format'), value: Buffer.from(STORE_FORMAT) },
        { type: 'put', key: metaKey('indexes'), value: Buffer.from(JSON.stringify(indexes)) },
      ], { sync: true });
      return indexes;
    }
    if (format === '1') {
      const groups = await upgradeToFormat2(db, STORE_FORMAT);
      log?.info({ data: dir, groups }, 'the database was upgraded from store format 1 to 2: group memberships are indexed (memberOf)');
    } else if (format !== STORE_FORMAT) {
      throw new StoreError(`${dir} has store format ${format}; this leveldap reads format ${STORE_FORMAT}`);
    }
    return JSON.parse((await db.get(metaKey('indexes')))?.toString() ?? '[]') as string[];
  }

  /** Is the database open (readiness)? */
  get isOpen(): boolean {
    return this.db.status === 'open';
  }

  /** How many entries are stored: a walk over the entry keys (no values read). */
  async countEntries(): Promise<number> {
    let count = 0;
    for await (const _key of this.db.keys(entriesRange())) count += 1;
    return count;
  }

  /** The bytes the database's files take on disk. */
  async sizeOnDisk(): Promise<number> {
    const names = await readdir(this.dir);
    const sizes = await Promise.all(names.map((name) => stat(join(this.dir, name)).then((info) => (info.isFile() ? info.size : 0), () => 0)));
    return sizes.reduce((sum, size) => sum + size, 0);
  }

  async close(): Promise<void> {
    await this.recovery.stop();
    await this.db.close();
  }

  /**
   * Compacts the whole database (every key starts with an ASCII letter, keys.ts). After a bulk
   * load it holds about half the bytes (100,000 users: 111 MB to 58 MB), with no overlapping
   * tables left, so a server reading it maps fewer pages and searches fewer files.
   */
  async compact(): Promise<void> {
    // On Node, `level` is classic-level, which has compactRange; level's types cover browsers too.
    await (this.db as unknown as { compactRange(start: string, end: string): Promise<void> }).compactRange(ALL_KEYS.start, ALL_KEYS.end);
  }

  /** A setting kept in the database (e.g. the admin password hash), or undefined. */
  async getSetting(name: string): Promise<string | undefined> {
    return (await this.db.get(metaKey(`setting:${name}`)))?.toString('utf8');
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.write([put(metaKey(`setting:${name}`), Buffer.from(value, 'utf8'))], true);
  }

  /** The entry at this DN (any case, any spacing), or undefined. */
  async get(dn: string | Dn): Promise<Entry | undefined> {
    return this.getByKey(dnKey(typeof dn === 'string' ? parseDn(dn) : dn));
  }

  /**
   * The same as get, read synchronously: LevelDB answers from its cache in microseconds, less than
   * a hop through the thread pool costs. For the hottest path (bind).
   */
  getSync(dn: Dn): Entry | undefined {
    return this.getByKeySync(dnKey(dn));
  }

  /**
   * One attribute type's values of an entry (undefined: no such entry), read synchronously and
   * without decoding the rest of it: a bind needs only userPassword.
   */
  valuesSync(dn: Dn, description: string): Buffer[] | undefined {
    const record = this.recordSync(dnKey(dn));
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return decodeValues(record, description);
  }

  /** The entry, or noSuchObject with the closest existing ancestor as matchedDN. */
  async require(dn: Dn, message = ''): Promise<Entry> {
    const entry = await this.get(dn);
    if (entry) return entry;
    throw await this.missing(dn, message);
  }

  /**
   * That the entry exists, or noSuchObject as for require. Its existence is read synchronously
   * (a search's base: one cached LevelDB read, less than a hop through the thread pool), the
   * closest ancestor only when it is missing.
   */
  async requireExists(dn: Dn, message = ''): Promise<void> {
    if (this.recordSync(dnKey(dn)) === undefined) throw await this.missing(dn, message);
  }

  /**
   * The entry record at this dnKey, read synchronously: from the cache of recent records while no
   * write has finished since it was read (stamped-cache.ts), else from LevelDB (and kept).
   */
  private recordSync(key: string): Buffer | undefined {
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

  private async missing(dn: Dn, message: string): Promise<DirectoryError> {
    const ancestor = await this.closestAncestorOf(dn);
    return new DirectoryError('noSuchObject', message, ancestor === undefined ? '' : formatDn(ancestor));
  }

  /** The entry at this dnKey, read synchronously (see getSync). */
  getByKeySync(key: string): Entry | undefined {
    const record = this.recordSync(key);
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return decodeEntry(record);
  }

  /**
   * The entry at this dnKey as LevelDB holds it now (not the record cache: writes read through
   * it under their locks). Read synchronously: a read LevelDB answers from its caches costs a few
   * µs, a hop through the thread pool 0.15-0.2 ms (measured: a synced modify from one client spent
   * 0.18 of its 1.1 ms there).
   */
  async getByKey(key: string): Promise<Entry | undefined> {
    const record = this.db.getSync(entryKey(key));
    if (record === undefined) return undefined;
    this.stats.entriesRead += 1;
    return decodeEntry(record);
  }

  /** The entries at these dnKeys (undefined where there is none), in one read. */
  async getManyByKey(keys: readonly string[]): Promise<(Entry | undefined)[]> {
    if (keys.length === 0) return [];
    const records = await this.db.getMany(keys.map(entryKey));
    this.stats.entriesRead += records.filter((record) => record !== undefined).length;
    return records.map((record) => (record === undefined ? undefined : decodeEntry(record)));
  }

  async hasChildren(dn: string | Dn): Promise<boolean> {
    const key = dnKey(typeof dn === 'string' ? parseDn(dn) : dn);
    for await (const _child of this.db.keys({ ...childrenRange(key), limit: 1 })) return true;
    return false;
  }

  /** Whether the database holds any entry. */
  async hasEntries(): Promise<boolean> {
    for await (const _key of this.db.keys({ ...ENTRY_KEYS, limit: 1 })) return true;
    return false;
  }

  /** The naming contexts: entries stored without a parent, as their DNs were written. */
  async suffixes(): Promise<string[]> {
    const dns: string[] = [];
    for await (const key of this.db.keys(suffixesRange())) {
      const entry = await this.getByKey(key.slice(2));
      if (entry) dns.push(entry.dn);
    }
    return dns;
  }

  /**
   * Checks an entry can be added, given which of its keys (ancestorKeys) exist, and returns
   * the operations that add it: entry record, one-level index, naming context, index keys.
   */
  planAdd(entry: Entry, dn: Dn, keys: readonly string[], options: AddOptions, exists: (key: string) => boolean): PlannedAdd {
    checkEntry(entry, dn);
    const [key] = keys as [string];
    if (exists(key)) throw alreadyExists(entry.dn);
    const newSuffix = needsNewSuffix(dn, keys, options.allowNewSuffix === true, exists);
    const stored = storedForm(entry, options.actor ?? '');
    const ops = entryOps(stored, dn, keys, this.indexed);
    if (newSuffix) ops.push(put(suffixKey(key)));
    return { key, ops, newSuffix, stored };
  }

  /**
   * Adds one entry with its index keys in one atomic batch; durable when it resolves. Holds the
   * locks of the entry and its parent (see writes.ts for the other writes). Returns the entry as stored.
   */
  async add(entry: Entry, options: AddOptions = {}): Promise<Entry> {
    const dn = parseDn(entry.dn);
    const keys = ancestorKeys(dn);
    return this.retrying(() => this.locks.run(keys.slice(0, 2), async (held) => {
      const known = await this.existing(keys);
      const { ops, stored } = this.planAdd(entry, dn, keys, options, (key) => known.has(key));
      await options.check?.(stored);
      await this.write(ops, options.sync ?? true, held);
      return stored;
    }));
  }

  /** From now on writes go to `record`, and this database is its local copy (written with writeLocal). */
  attach(record: SystemOfRecord): void {
    this.record = record;
    this.locks.inside = (keys, critical, held) => record.around(keys, critical, held);
  }

  /**
   * Runs a write (its locks, reads, checks and batch) again while its local copy was behind the
   * system of record, after catching up; at most STALE_TRIES times, then busy.
   */
  async retrying<T>(write: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await write();
      } catch (error) {
        if (!(error instanceof StaleCopy) || !this.record) throw error;
        this.staleRetries += 1;
        if (tries === STALE_TRIES) throw new DirectoryError('busy', `the local copy of the store kept changing under this write (${tries} tries); try again`);
        await this.record.catchUp();
      }
    }
  }

  /** The system of record's counters, when this database is a copy of one. */
  recordStats(): RecordStats | undefined {
    return this.record && { ...this.record.stats(), staleRetries: this.staleRetries };
  }

  /** Where failed binds are shared between nodes, or undefined (one server counts its own). */
  get sharedFailures(): SharedFailures | undefined {
    return this.record?.failures;
  }

  /** Why reads are refused now: the system of record this database copies has been silent too long (SystemOfRecord). */
  staleReason(): string | undefined {
    return this.record?.staleReason();
  }

  /**
   * Writes the operations, to the system of record when there is one (attach), else here
   * (writeLocal). `held`: the entry locks the write holds, when it holds some.
   */
  async write(ops: readonly BatchOp[], sync: boolean, held?: HeldLocks): Promise<void> {
    if (this.record) await this.record.commit(ops, held);
    else await this.writeLocal(ops, sync);
  }

  /** The entry records at these dnKeys as stored (undefined where there is none). */
  /**
   * The entry records at these dnKeys as stored (undefined where there is none). A few are read
   * synchronously (as getSync: a cached read costs less than a trip to LevelDB's thread, and a
   * node of a PostgreSQL store reads its written entries three times per write); many in one read.
   */
  async records(keys: readonly string[]): Promise<(Buffer | undefined)[]> {
    if (keys.length <= SYNC_RECORDS) return keys.map((key) => this.db.getSync(entryKey(key)));
    return this.db.getMany(keys.map(entryKey));
  }

  /** A value of the meta space (m\0), or undefined. */
  async getMeta(name: string): Promise<string | undefined> {
    return (await this.db.get(metaKey(name)))?.toString('utf8');
  }

  /** Removes every entry and what is derived from them, and the settings: the format and indexes stay. */
  async wipe(): Promise<void> {
    const kept = new Set([metaKey('format'), metaKey('indexes')]);
    let ops: BatchOp[] = [];
    for await (const key of this.db.keys({ gte: ALL_KEYS.start, lt: ALL_KEYS.end })) {
      if (kept.has(key)) continue;
      ops.push(del(key));
      if (ops.length < 10_000) continue;
      await this.writeLocal(ops, false);
      ops = [];
    }
    await this.writeLocal(ops, true);
  }

  /**
   * Writes the operations to this LevelDB atomically. A chained batch: 7x faster than an array batch here.
   * Resolves once the write is acknowledged (write-gate.ts); refused with unavailable while
   * writes are suspended, and with `other` when LevelDB failed or the outcome is unknown.
   */
  async writeLocal(ops: readonly BatchOp[], sync: boolean): Promise<void> {
    const batch = this.db.batch();
    for (const op of ops) {
      if (op.type === 'put') batch.put(op.key, op.value);
      else batch.del(op.key);
    }
    let pass = this.gate.admit();
    while (pass === FULL) {
      await this.gate.room();
      pass = this.gate.admit();
    }
    if (!pass) {
      await batch.close();
      throw new DirectoryError('unavailable', SUSPENDED);
    }
    try {
      await batch.write({ sync }); // handed to LevelDB before the first await, as admit() wants
    } catch (error) {
      throw this.failed(pass, error);
    }
    if (!(await this.gate.succeeded(pass))) {
      throw new DirectoryError('other', 'entry update failed: another database write failed meanwhile, so this one may or may not be stored (see the server log)');
    }
  }

  /** The error a failed write answers with; the write that closes the gate starts the recovery. */
  private failed(pass: Pass, error: unknown): Error {
    if (NOT_WRITTEN.has(errorCode(error) ?? '')) {
      this.gate.withdrawn(pass);
      return asError(error);
    }
    if (this.gate.failed(pass)) this.recovery.start(error);
    return new DirectoryError('other', `entry update failed: the database could not be written (${errorMessage(error).replace(/^.*: /, '')}); writes are suspended`);
  }

  /** The closest existing ancestor of `dn` (for a result's matchedDN), or undefined. */
  async closestAncestorOf(dn: Dn): Promise<Dn | undefined> {
    const keys = ancestorKeys(dn);
    const known = await this.existing(keys.slice(1));
    const depth = keys.findIndex((key, i) => i > 0 && known.has(key));
    return depth === -1 ? undefined : dn.slice(depth);
  }

  /** Which of these dnKeys exist, in one read. */
  async existing(keys: readonly string[]): Promise<Set<string>> {
    const records = await this.db.getMany(keys.map(entryKey));
    return new Set(keys.filter((_key, i) => records[i] !== undefined));
  }

  /**
   * Entries in scope, narrowed by an index when the hint's attribute is indexed. These are
   * candidates: the caller still evaluates its whole filter on each.
   */
  async *search(base: string | Dn, scope: Scope, hint?: IndexHint): AsyncGenerator<Entry> {
    const baseDn = typeof base === 'string' ? parseDn(base) : base;
    const baseKey = dnKey(baseDn);
    if (scope === 'base') {
      const entry = await this.getByKey(baseKey);
      if (entry) yield entry;
      return;
    }
    if (hint && ('membersOf' in hint || 'entries' in hint)) {
      yield* this.known('membersOf' in hint ? this.memberships.members(hint.membersOf) : hint.entries, baseKey, scope);
      return;
    }
    const attribute = hint && typeKey('present' in hint ? hint.present : hint.equality.attribute);
    if (!hint || !attribute || !this.indexed.has(attribute) || ('present' in hint && attribute === 'objectclass')) {
      yield* scope === 'one' ? this.children(baseKey) : this.subtree(baseKey);
      return;
    }
    if ('equality' in hint) {
      yield* this.equal(equalityRange(attribute, normalizeValue(attribute, hint.equality.value)), baseKey, scope);
      return;
    }
    for await (const indexKey of this.db.keys(presenceRange(attribute))) {
      this.stats.indexKeysRead += 1;
      const key = dnKeyOfIndexKey(indexKey);
      if (!this.inScope(key, baseKey, scope)) continue;
      const entry = await this.getByKey(key);
      if (entry && isFirstValue(entry, attribute, valueKeyOfIndexKey(indexKey, attribute))) yield entry;
    }
  }

  /**
   * The entries in scope under the index keys of one value. The keys are read INDEX_BATCH at a
   * time (the usual one or few in a single trip to LevelDB's thread), or not at all when the
   * cache has the answer (stamped-cache.ts); each entry is read synchronously, as a bind reads
   * (one cached read costs less than a hop).
   */
  private async *equal(range: { gte: string; lt: string }, baseKey: string, scope: Scope): AsyncGenerator<Entry> {
    const kept = this.equalityCache.get(range.gte);
    if (kept) {
      yield* this.entriesAt(kept, baseKey, scope);
      return;
    }
    const stamp = this.equalityCache.begin();
    const iterator = this.db.keys(range);
    try {
      let keys = await this.dnKeysOf(iterator);
      if (keys.length < INDEX_BATCH) {
        const more = await this.dnKeysOf(iterator); // at once, with no trip, when the iterator has ended
        if (more.length === 0) this.equalityCache.keep(range.gte, keys, stamp);
        yield* this.entriesAt(keys, baseKey, scope);
        keys = more;
      }
      while (keys.length > 0) {
        yield* this.entriesAt(keys, baseKey, scope);
        keys = await this.dnKeysOf(iterator);
      }
    } finally {
      await iterator.close();
    }
  }

  /** The dnKeys of the iterator's next INDEX_BATCH index keys. */
  private async dnKeysOf(iterator: { nextv(size: number): Promise<string[]> }): Promise<string[]> {
    const indexKeys = await iterator.nextv(INDEX_BATCH);
    this.stats.indexKeysRead += indexKeys.length;
    return indexKeys.map(dnKeyOfIndexKey);
  }

  /** The entries of these dnKeys that exist and are in scope, read synchronously. */
  private *entriesAt(keys: readonly string[], baseKey: string, scope: Scope): Generator<Entry> {
    for (const key of keys) {
      if (!this.inScope(key, baseKey, scope)) continue;
      const entry = this.getByKeySync(key);
      if (entry) yield entry;
    }
  }

  /**
   * The entries of these dnKeys that exist and are in scope (a member DN need not name an
   * entry), read KNOWN_BATCH at a time: one read for many entries, where a group's thousands
   * of members would otherwise cost a trip to LevelDB's thread each.
   */
  private async *known(keys: Iterable<string> | AsyncIterable<string>, baseKey: string, scope: Scope): AsyncGenerator<Entry> {
    let batch: string[] = [];
    for await (const key of keys) {
      this.stats.indexKeysRead += 1;
      if (!this.inScope(key, baseKey, scope)) continue;
      batch.push(key);
      if (batch.length < KNOWN_BATCH) continue;
      yield* this.existingEntries(batch);
      batch = [];
    }
    yield* this.existingEntries(batch);
  }

  private async *existingEntries(keys: readonly string[]): AsyncGenerator<Entry> {
    for (const entry of await this.getManyByKey(keys)) if (entry) yield entry;
  }

  private inScope(key: string, baseKey: string, scope: Scope): boolean {
    if (!inSubtree(key, baseKey)) return false;
    if (scope === 'sub') return true;
    return isDirectChild(key, baseKey);
  }

  private async *children(parentKey: string): AsyncGenerator<Entry> {
    for await (const childDnKey of this.db.values(childrenRange(parentKey))) {
      const entry = await this.getByKey(childDnKey.toString());
      if (entry) yield entry;
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
    for await (const record of this.db.values(subtreeRange(key))) {
      this.stats.entriesRead += 1;
      yield decodeEntry(record);
    }
  }
}
