/**
 * The directory store: entries in one LevelDB database, keyed by normalized DN (keys.ts), with
 * equality indexes (which answer presence too) and a group's membership keys (groups.ts) written
 * in the same atomic batch as the entry. Opening is level.ts's, reads and a search's candidates
 * reads.ts's, a write's operations batch-ops.ts's; here: the writes' path to LevelDB (or to a
 * system of record, system-of-record.ts) through the write gate, and the store's own questions.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { del, put, alreadyExists, entryOps, needsNewSuffix, storedForm, type BatchOp } from './batch-ops.js';
import { formatDn, parseDn, type Dn } from './dn.js';
import type { Entry } from './entry.js';
import { DirectoryError, StaleCopy } from './errors.js';
import { DEFAULT_INDEXES } from './indexes.js';
import { ancestorKeys, childrenRange, dnKey, dnKeyOfEntryKey, entriesRange, entryKey, equalityPrefixOfKey, metaKey, suffixKey, ALL_KEYS, ENTRY_KEYS, NO_KEYS, suffixesRange } from './keys.js';
import { checkFormat, entryCacheBytes, openLevel, DEFAULT_ENTRY_CACHE_MB, type Db, type OpenOptions } from './level.js';
import { Memberships } from './memberships.js';
import { KeyedMutex, SharedSlots, type HeldLocks } from './mutex.js';
import { SharedTable } from './shared-table.js';
import { walkPasswords, type WalkTurns } from './password-walk.js';
import { EntryReads, type IndexHint, type Scope, type StoreStats } from './reads.js';
import type { RecordSource } from './record-source.js';
import { WriteRecovery, type RecoveryDb } from './recovery.js';
import type { RunOp } from './run-files.js';
import type { RecordStats, SharedFailures, SystemOfRecord } from './system-of-record.js';
import { checkEntry } from './validate.js';
import { FULL, WriteGate, type Pass } from './write-gate.js';
import { errorCode, errorMessage, asError } from '../errors.js';

/** Entry records read synchronously at most by records(); more are read in one getMany. */
const SYNC_RECORDS = 8;

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

/** Tries of a write whose local copy was behind (StaleCopy), each after catching up. */
const STALE_TRIES = 5;

/** Errors of a write that never reached LevelDB. */
const NOT_WRITTEN = new Set(['LEVEL_DATABASE_NOT_OPEN', 'LEVEL_BATCH_NOT_OPEN']);

const SUSPENDED = 'writes are suspended after a database write error (see the server log); reads go on';

export class DirectoryStore {
  /** Entry records and search candidates (reads.ts); `stats` counts what they read. */
  private readonly reads: EntryReads;
  readonly stats: StoreStats;
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
  /** The entry cache's size in bytes; 0 when it is off (--entry-cache-mb 0, or the directory does not fit). */
  readonly entryCacheBytes: number;
  /** Every account's userPassword values, shared by the threads (shared-table.ts); undefined when not kept. */
  readonly passwords: SharedTable | undefined;
  /** The dnKeys under values of the equality index, shared by the threads (shared-table.ts); undefined when not kept. */
  readonly equalities: SharedTable | undefined;
  /** Entry records by dnKey, shared by the threads for searches (shared-table.ts); undefined when not kept. */
  readonly recordTable: SharedTable | undefined;

  private constructor(private readonly db: Db, readonly dir: string, readonly indexed: ReadonlySet<string>, options: OpenOptions, entryCacheBytes: number) {
    const { threads } = options;
    this.locks = new KeyedMutex(threads && new SharedSlots(threads.sharedLocks, threads.owner), () => this.record?.clock ?? 0);
    this.gate = threads ? new WriteGate(threads.writeGate, threads.owner) : new WriteGate();
    this.recovery = new WriteRecovery(db as unknown as RecoveryDb, dir, this.gate, options.log);
    this.memberships = new Memberships(db, () => this.gate.settled);
    this.passwords = options.tables?.passwords && new SharedTable(options.tables.passwords);
    this.equalities = options.tables?.equalities && new SharedTable(options.tables.equalities);
    this.recordTable = options.tables?.records && new SharedTable(options.tables.records);
    const tables = { passwords: this.passwords, equalities: this.equalities, records: this.recordTable };
    this.reads = new EntryReads(db, indexed, this.memberships, () => this.gate.settled, entryCacheBytes, tables);
    this.stats = this.reads.stats;
    this.entryCacheBytes = entryCacheBytes;
  }

  /** Opens (or creates) the database in `dir`; refuses unknown formats and databases in use. */
  static async open(dir: string, options: OpenOptions = {}): Promise<DirectoryStore> {
    const db = await openLevel(dir, options);
    try {
      const indexes = await checkFormat(db, dir, options.indexes ?? DEFAULT_INDEXES, options.log);
      return new DirectoryStore(db, dir, new Set(indexes), options, options.entryCacheBytes ?? await entryCacheBytes(db, options.entryCacheMb ?? DEFAULT_ENTRY_CACHE_MB));
    } catch (error) {
      await db.close();
      throw error;
    }
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
    await this.compactRange(ALL_KEYS.start, ALL_KEYS.end);
  }

  /**
   * Writes LevelDB's memtable out as a table (a compaction of a range no key is in does only that):
   * a bulk load in key order (sorted-load.ts) uses it so that no table it writes spans the keys
   * already there.
   */
  async writeOutMemtable(): Promise<void> {
    await this.compactRange(NO_KEYS.start, NO_KEYS.end);
  }

  /**
   * Replaces the database with tables `write` puts straight into its directory (tables/load.ts),
   * given the records it holds now (a database without entries: its format and settings). The
   * database is closed meanwhile and opened again after, whatever happened.
   */
  async rewriteAsTables(write: (dir: string, records: readonly RunOp[]) => Promise<void>): Promise<void> {
    const records: RunOp[] = [];
    for await (const [key, value] of this.db.iterator()) records.push({ type: 'put', key, value });
    await this.db.close();
    try {
      await write(this.dir, records);
    } finally {
      await this.db.open();
    }
  }

  private async compactRange(start: string, end: string): Promise<void> {
    // On Node, `level` is classic-level, which has compactRange; level's types cover browsers too.
    await (this.db as unknown as { compactRange(start: string, end: string): Promise<void> }).compactRange(start, end);
  }

  /** A setting kept in the database (e.g. the admin password hash), or undefined. */
  async getSetting(name: string): Promise<string | undefined> {
    return (await this.db.get(metaKey(`setting:${name}`)))?.toString('utf8');
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.write([put(metaKey(`setting:${name}`), Buffer.from(value, 'utf8'))], true);
  }

  /** The userPassword values of the entry at this dnKey (undefined: no such entry), read synchronously: a bind's read. */
  passwordsByKeySync(key: string): Buffer[] | undefined {
    return this.reads.passwordsSync(key);
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
    return this.reads.valuesSync(dnKey(dn), description);
  }

  /** The entry, or noSuchObject with the closest existing ancestor as matchedDN. */
  async require(dn: Dn, message = ''): Promise<Entry> {
    const entry = await this.get(dn);
    if (entry) return entry;
    throw await this.missing(dn, message);
  }

  /**
   * That the entry exists (undefined), or a promise rejected with noSuchObject as for require. Its
   * existence is read synchronously (a search's base: kept, or one cached LevelDB read, less than
   * a hop through the thread pool), the closest ancestor only when it is missing: an entry that
   * exists costs no promise.
   */
  requireExists(dn: Dn, message = '', key = dnKey(dn)): Promise<never> | undefined {
    if (this.reads.existsSync(key)) return undefined;
    return this.missing(dn, message).then((error) => { throw error; });
  }

  private async missing(dn: Dn, message: string): Promise<DirectoryError> {
    const ancestor = await this.closestAncestorOf(dn);
    return new DirectoryError('noSuchObject', message, ancestor === undefined ? '' : formatDn(ancestor));
  }

  /** The entry at this dnKey, read synchronously (see getSync). */
  getByKeySync(key: string): Entry | undefined {
    return this.reads.getByKeySync(key);
  }

  /** The entry at this dnKey as LevelDB holds it now (not the record cache: writes read through it under their locks). */
  getByKey(key: string): Promise<Entry | undefined> {
    return this.reads.getByKey(key);
  }

  /** The entries at these dnKeys (undefined where there is none), in one read. */
  getManyByKey(keys: readonly string[]): Promise<(Entry | undefined)[]> {
    return this.reads.getManyByKey(keys);
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
    const ops = entryOps(stored, keys, this.indexed);
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

  /**
   * The entry records at these dnKeys as stored (undefined where there is none). A few are read
   * synchronously (as getSync: a cached read costs less than a trip to LevelDB's thread, and a
   * node of a PostgreSQL store reads its written entries three times per write); many in one read.
   */
  async records(keys: readonly string[]): Promise<(Buffer | undefined)[]> {
    if (keys.length <= SYNC_RECORDS) return keys.map((key) => this.db.getSync(entryKey(key)));
    return this.db.getMany(keys.map(entryKey));
  }

  /**
   * Reads every entry's userPassword values into the password table, from one snapshot at a time,
   * as `turns` allow (password-walk.ts); returns how many entries it kept.
   */
  async fillPasswordTable(turns?: WalkTurns): Promise<number> {
    return this.passwords === undefined ? 0 : walkPasswords(this.db, this.passwords, () => this.isOpen, turns);
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
      try {
        await batch.write({ sync }); // handed to LevelDB before the first await, as admit() wants
      } catch (error) {
        throw this.failed(pass, error);
      }
      if (!(await this.gate.succeeded(pass))) {
        throw new DirectoryError('other', 'entry update failed: another database write failed meanwhile, so this one may or may not be stored (see the server log)');
      }
    } finally {
      this.touched(ops); // after the gate counted the write settled (so the record cache drops what it read before), before it is answered
    }
  }

  /**
   * A write to these keys has finished (or failed): the shared tables' records of its entries
   * (the password and record tables) and of the index values it added or removed (the equality
   * table) are stale.
   */
  private touched(ops: readonly BatchOp[]): void {
    const { passwords, equalities, recordTable } = this;
    if (passwords === undefined && equalities === undefined && recordTable === undefined) return;
    for (const op of ops) {
      const key = dnKeyOfEntryKey(op.key);
      if (key !== undefined) {
        passwords?.touched(key);
        recordTable?.touched(key);
      } else if (equalities !== undefined) {
        const prefix = equalityPrefixOfKey(op.key);
        if (prefix !== undefined) equalities.touched(prefix);
      }
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

  /** Entries in scope, narrowed by an index when the hint's attribute is indexed: candidates (reads.ts). */
  search(base: string | Dn, scope: Scope, hint?: IndexHint): AsyncGenerator<Entry> {
    return this.reads.search(base, scope, hint);
  }

  /** The same candidates under the entry of this dnKey, as records decoded only as far as the caller asks (entry-record.ts). */
  searchRecords(baseKey: string, scope: Scope, hint?: IndexHint): RecordSource {
    return this.reads.searchRecords(baseKey, scope, hint);
  }

  /** The dnKeys of the entry `key` and everything below it, parents before children: at most `limit` (0: all). */
  subtreeKeys(key: string, limit = 0): Promise<string[]> {
    return this.reads.subtreeKeys(key, limit);
  }

  /** The entry `key` and everything below it, parents before children. */
  subtree(key: string): AsyncGenerator<Entry> {
    return this.reads.subtree(key);
  }
}
