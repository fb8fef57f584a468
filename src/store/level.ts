/**
 * Opening the LevelDB database under a store: its options (block cache, write buffer, threads),
 * the format and index list kept in the meta space (a format-1 database upgraded on open), and
 * the entry cache's size for the records it holds.
 */
import { existsSync } from 'node:fs';
import { Level } from 'level';
import { StoreError } from './errors.js';
import { normalizeIndexList } from './indexes.js';
import { ENTRY_KEYS, metaKey } from './keys.js';
import { RECORD_OVERHEAD } from './stamped-cache.js';
import type { StoreLog } from './recovery.js';
import type { TableMemory } from './shared-table.js';
import { upgradeToFormat2 } from './upgrade.js';
import { errorMessage } from '../errors.js';

export type Db = Level<string, Buffer>;

/** The on-disk layout this code reads and writes (2: with the group keys; a format-1 database is upgraded on open, upgrade.ts). */
export const STORE_FORMAT = '2';

export const DEFAULT_CACHE_MB = 8;
export const DEFAULT_ENTRY_CACHE_MB = 16;

export interface OpenOptions {
  readonly createIfMissing?: boolean;
  /** Attributes to index, for a new database (an existing one keeps its own). */
  readonly indexes?: readonly string[];
  /** LevelDB's block cache in MiB (default 8; import uses more). Part of the server's resident memory. */
  readonly cacheMb?: number;
  /** Entry records kept per thread in MiB, besides LevelDB's cache (default 16, 0: none; stamped-cache.ts). */
  readonly entryCacheMb?: number;
  /**
   * The entry cache's size in bytes as the store's first opener decided it (entryCacheBytes): a
   * serving thread opening the same database takes it instead of counting the records again.
   */
  readonly entryCacheBytes?: number;
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
  /** The tables shared by every thread of the process (shared-table.ts): the password table for binds, the equality table for searches. */
  readonly tables?: TableMemory;
  /** Where a failed write, and writes resuming, are told (docs/durability.md). */
  readonly log?: StoreLog;
}

const DEFAULT_WRITE_BUFFER_MB = 32;

/**
 * The entry cache's size: `mb` MiB when every entry record fits in it, counted as the cache counts
 * them (their bytes and RECORD_OVERHEAD each), else none. The records are read at start until they
 * add up to more than `mb` MiB, so this costs a read of at most the cache's size (16 MiB of make-ldif
 * users: about 14,000 records). A cache holding only part of the records read at random pushes out
 * records that will be read again, and costs its whole size in resident memory (measured: 10,000
 * users through 8 MiB, binds 4-12% slower; 100,000 users, 8 MiB, 22-34 MB more RSS). (Their size on
 * disk, LevelDB's approximateSize, is no guide: 10,000 make-ldif users with pre-hashed passwords
 * took 9.2 MiB of it for 10.2 MiB of keys and records, 100,000 took 45.8 MiB for 104 MiB.)
 */
export async function entryCacheBytes(db: Db, mb: number): Promise<number> {
  const bytes = mb * 2 ** 20;
  if (bytes === 0) return 0;
  let counted = 0;
  for await (const record of db.values({ gte: ENTRY_KEYS.gte, lt: ENTRY_KEYS.lt })) {
    counted += record.length + RECORD_OVERHEAD;
    if (counted > bytes) return 0;
  }
  return bytes;
}

export async function openLevel(dir: string, options: OpenOptions): Promise<Db> {
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

/** The database's index list; a new database gets `wantedIndexes` and this format, an older format is upgraded, an unknown one refused. */
export async function checkFormat(db: Db, dir: string, wantedIndexes: readonly string[], log?: StoreLog): Promise<string[]> {
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
