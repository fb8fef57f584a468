/**
 * Values by key in memory shared by the serving threads, exact through write marks. Two are kept
 * (store.ts): the password table, every account's userPassword values by dnKey, so that a bind
 * of a directory too large for the entry cache (stamped-cache.ts) reads no LevelDB record (at a
 * million users that read is 12-15 µs of a bind's CPU, and the 1 KB record it copies is work for
 * the collector: docs/performance.md, "A password table shared by the threads"); and the equality
 * table, the dnKeys under one value of the equality index by the value's key prefix, so that a
 * `(uid=user.N)` search of a large directory makes no trip to LevelDB's thread for its index keys
 * (docs/performance.md, "Equality answers shared by the threads"); and the record table, entry
 * records by dnKey, for the searches of a directory too large for each thread's entry cache: a
 * search of 100,000 users then reads no record from LevelDB once it was read (docs/performance.md,
 * "Entry records shared by the threads").
 *
 * One SharedArrayBuffer, in Int32 cells, then bytes:
 *
 *   header    lock · generation · tail · used · slots · cleared at      (HEADER cells)
 *   marks     MARKS cells: writes finished on the keys of each hash bucket
 *   index     maxSlots x [tag, offset + 1]: open addressing, linear probing, `slots` in use
 *   arena     records, appended, 4-byte aligned:
 *               mark (i32) · key length (u16) · values length (u16) · key (one byte a char)
 *               · values: per value, its length (u16) and its bytes
 *
 * Exact, not eventually right: a record is used only while its bucket's mark still equals the mark
 * read before its values were read from LevelDB. A write bumps the marks of the keys it wrote
 * after LevelDB has it and after the write gate counted it settled, before it is acknowledged
 * (store.ts, writeLocal), so a record read before an acknowledged write is never used after it.
 *
 * Readers take no lock: they read `generation` before and after (a seqlock); it is odd while the
 * index is rebuilt or the table emptied, and moves on each, so a reader that raced one reads
 * nothing. Writers (a record kept, the index rebuilt twice as large, the table emptied when the
 * arena is full) take the lock, and one that finds it taken keeps nothing: a reader never waits.
 * Records are never changed in place: a key read again gets a new record, and the bytes of the old
 * one are reclaimed only when the table is emptied.
 */

import { totalmem } from 'node:os';
import { fnv1a } from './mutex.js';

const CELL = { lock: 0, generation: 1, tail: 2, used: 3, slots: 4, clearedAt: 5 } as const;
const HEADER = 8;
/** Hash buckets of the write marks (a write to one entry makes the records of about 1/MARKS of the keys read again). */
const MARKS = 1 << 16;
const MARKS_MASK = MARKS - 1;
/** Index slots at first; doubled (the index rebuilt) when more than LOAD of them are used. */
const INITIAL_SLOTS = 1 << 16;
const LOAD = 0.6;
/** The index takes at most this share of the table's bytes. */
const INDEX_SHARE = 8;
/** A record larger than this is not kept (a few hashes of an account, not a certificate store). */
export const MAX_RECORD_BYTES = 2048;
/** A full arena is emptied at most once in this many seconds (so that a working set larger than the table does not thrash it). */
const CLEAR_INTERVAL_S = 60;
const RECORD_HEAD = 8;
export const MIN_TABLE_MB = 4;
/** Offsets are Int32 cells. */
export const MAX_TABLE_MB = 2047;
/** serve's --password-table-mb. */
export const DEFAULT_PASSWORD_TABLE_MB = 256;
/** serve's --equality-table-mb (a million one-entry answers take about 90 MiB with the index). */
export const DEFAULT_EQUALITY_TABLE_MB = 128;
/** The least of serve's --record-table-mb default (100,000 make-ldif users' records take about 110 MiB). */
export const DEFAULT_RECORD_TABLE_MB = 256;
/** serve's --record-table-mb default is this share of the machine's memory (or its cgroup's limit), at least DEFAULT_RECORD_TABLE_MB. */
const RECORD_TABLE_SHARE = 16;

/**
 * serve's --record-table-mb default for a machine with this many bytes of memory: a sixteenth of
 * it, from DEFAULT_RECORD_TABLE_MB to MAX_TABLE_MB. A machine of 24 GB then holds a million
 * make-ldif users' records (about 1.1 GB), as slapd's back-mdb keeps its whole map in the page
 * cache; the memory is taken only as searches fill the table (docs/performance.md, "A record
 * table sized by the machine").
 */
export function recordTableMbFor(memoryBytes: number): number {
  const share = Math.floor(memoryBytes / RECORD_TABLE_SHARE / 2 ** 20);
  return Math.min(MAX_TABLE_MB, Math.max(DEFAULT_RECORD_TABLE_MB, share));
}

/** The memory this process may use: the machine's, or its cgroup's limit when lower (Node reports an unlimited one as a huge number). */
export function machineMemoryBytes(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  return limit > 0 ? Math.min(totalmem(), limit) : totalmem();
}

/** serve's --record-table-mb default on this machine (recordTableMbFor). */
export const defaultRecordTableMb = (): number => recordTableMbFor(machineMemoryBytes());

/** A char a record cannot hold (keys are kept one byte a char). */
const WIDE_CHAR = /[^\x00-\xff]/;

/** A key's hash with its low bit set (a tag is never 0), or 0 when the key cannot be held (a char above 255). */
export function hashKey(key: string): number {
  if (WIDE_CHAR.test(key)) return 0;
  const hash = fnv1a(key);
  return (hash ^ (hash >>> 15)) | 1;
}

/** The index slots a table of this many bytes can hold at most (a power of two). */
function maxSlotsFor(bytes: number): number {
  let slots = INITIAL_SLOTS;
  while (slots * 2 * 8 <= bytes / INDEX_SHARE) slots *= 2;
  return slots;
}

/** The shared memory of the tables a process keeps (SharedTable.allocate), each when kept: every thread opens the store with the same. */
export interface TableMemory {
  /** The password table: userPassword values by dnKey, for binds. */
  readonly passwords?: SharedArrayBuffer;
  /** The equality table: the dnKeys under values of the equality index, for searches. */
  readonly equalities?: SharedArrayBuffer;
  /** The record table: entry records by dnKey, for searches. */
  readonly records?: SharedArrayBuffer;
}

export interface SharedTableStats {
  hits: number;
  misses: number;
}

export class SharedTable {
  private readonly cells: Int32Array;
  private readonly marks: Int32Array;
  private readonly index: Int32Array;
  private readonly arena: Uint8Array;
  private readonly arenaCells: Int32Array;
  /** The arena as a Buffer (keys are written into it as latin1). */
  private readonly arenaBytes: Buffer;
  private readonly maxSlots: number;
  /** This thread's lookups. */
  readonly stats: SharedTableStats = { hits: 0, misses: 0 };

  constructor(readonly buffer: SharedArrayBuffer) {
    this.maxSlots = maxSlotsFor(buffer.byteLength);
    this.cells = new Int32Array(buffer, 0, HEADER);
    this.marks = new Int32Array(buffer, HEADER * 4, MARKS);
    this.index = new Int32Array(buffer, (HEADER + MARKS) * 4, this.maxSlots * 2);
    const arenaStart = (HEADER + MARKS + this.maxSlots * 2) * 4;
    this.arena = new Uint8Array(buffer, arenaStart);
    this.arenaCells = new Int32Array(buffer, arenaStart, Math.floor(this.arena.length / 4));
    this.arenaBytes = Buffer.from(buffer, arenaStart, this.arena.length);
  }

  /** Shared memory for a table of `mb` MiB, empty (pages are taken from the system as records fill them). */
  static allocate(mb: number): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(Math.max(MIN_TABLE_MB, mb) * 1024 * 1024);
    new Int32Array(buffer, 0, HEADER)[CELL.slots] = INITIAL_SLOTS;
    return buffer;
  }

  /** Records held (keys in the index, stale ones included). */
  get size(): number {
    return Atomics.load(this.cells, CELL.used);
  }

  /** Bytes of the arena in use. */
  get bytesUsed(): number {
    return Atomics.load(this.cells, CELL.tail);
  }

  /** No record can be added without emptying the table (a walk filling it stops here). */
  get full(): boolean {
    const slots = Atomics.load(this.cells, CELL.slots);
    return Atomics.load(this.cells, CELL.tail) + MAX_RECORD_BYTES + 3 > this.arena.length || (slots >= this.maxSlots && this.size + 1 > slots * LOAD);
  }

  /** The mark to give `keep` for values about to be read from the database. */
  markOf(hash: number): number {
    return Atomics.load(this.marks, hash & MARKS_MASK);
  }

  /** A copy of every mark now (for a walk over a snapshot of the database: what each record read from it is kept with). */
  copyMarks(): Int32Array {
    return this.marks.slice();
  }

  /** The mark of `hash` in a copy made by copyMarks. */
  static markIn(marks: Int32Array, hash: number): number {
    return marks[hash & MARKS_MASK]!;
  }

  /** A write to this key has finished: records read before it are not used again. */
  touched(key: string): void {
    Atomics.add(this.marks, hashKey(key) & MARKS_MASK, 1);
  }

  /** Every record is stale (a thread died with writes in flight: which of them LevelDB has is unknown). */
  touchedAll(): void {
    for (let bucket = 0; bucket < MARKS; bucket += 1) Atomics.add(this.marks, bucket, 1);
  }

  /** The values held for this key, or undefined when none are held or they may be stale. */
  lookup(key: string, hash: number): Buffer[] | undefined {
    if (hash === 0) return undefined;
    const generation = Atomics.load(this.cells, CELL.generation);
    const found = (generation & 1) === 0 ? this.read(key, hash) : undefined;
    if (found === undefined || Atomics.load(this.cells, CELL.generation) !== generation) {
      this.stats.misses += 1;
      return undefined;
    }
    this.stats.hits += 1;
    return found;
  }

  /**
   * The values for this key: those held, else `read()`'s (undefined: no such key), kept with the
   * mark taken before reading them, so that a write finished meanwhile makes them stale.
   */
  readThrough(key: string, read: () => Buffer[] | undefined): Buffer[] | undefined {
    const hash = hashKey(key);
    const held = this.lookup(key, hash);
    if (held !== undefined) return held;
    const mark = this.markOf(hash);
    const values = read();
    if (values !== undefined) this.keep(key, hash, values, mark);
    return values;
  }

  /**
   * Keeps the values read for this key after markOf(hash) returned `mark`. Keeps nothing (false)
   * when another thread holds the lock, the record is too large, or there is no room.
   */
  keep(key: string, hash: number, values: readonly Buffer[], mark: number): boolean {
    if (hash === 0) return false;
    const bytes = RECORD_HEAD + key.length + values.reduce((sum, value) => sum + 2 + value.length, 0);
    if (bytes > MAX_RECORD_BYTES || values.some((value) => value.length > 0xffff)) return false;
    if (Atomics.compareExchange(this.cells, CELL.lock, 0, 1) !== 0) return false;
    try {
      if (!this.roomFor(bytes)) return false;
      this.insert(key, hash, values, mark, bytes);
      return true;
    } finally {
      Atomics.store(this.cells, CELL.lock, 0);
    }
  }

  private read(key: string, hash: number): Buffer[] | undefined {
    const offset = this.find(key, hash);
    if (offset < 0) return undefined;
    if (this.arenaCells[offset >> 2] !== Atomics.load(this.marks, hash & MARKS_MASK)) return undefined;
    const arena = this.arena;
    let at = offset + 4;
    const keyLength = arena[at]! | (arena[at + 1]! << 8);
    const end = at + 4 + keyLength + (arena[at + 2]! | (arena[at + 3]! << 8));
    at += 4 + keyLength;
    const values: Buffer[] = [];
    while (at < end) {
      const length = arena[at]! | (arena[at + 1]! << 8);
      values.push(Buffer.from(arena.subarray(at + 2, at + 2 + length)));
      at += 2 + length;
    }
    return values;
  }

  /** The arena offset of this key's record, or -1. */
  private find(key: string, hash: number): number {
    const slot = this.probe(key, hash);
    return slot < 0 || Atomics.load(this.index, slot * 2) === 0 ? -1 : Atomics.load(this.index, slot * 2 + 1) - 1;
  }

  /**
   * The slot holding this key, or the empty slot where it would go; -1 when every slot was looked
   * at (a reader racing a rebuild; under the lock the index always has room).
   */
  private probe(key: string, hash: number): number {
    const slots = Atomics.load(this.cells, CELL.slots);
    const mask = slots - 1;
    for (let slot = hash & mask, probes = 0; probes < slots; slot = (slot + 1) & mask, probes += 1) {
      const tag = Atomics.load(this.index, slot * 2);
      if (tag === 0 || (tag === hash && this.holdsKey(Atomics.load(this.index, slot * 2 + 1) - 1, key))) return slot;
    }
    return -1;
  }

  private holdsKey(offset: number, key: string): boolean {
    const arena = this.arena;
    if (offset < 0 || offset + RECORD_HEAD + key.length > arena.length) return false;
    if ((arena[offset + 4]! | (arena[offset + 5]! << 8)) !== key.length) return false;
    for (let i = 0, at = offset + RECORD_HEAD; i < key.length; i += 1, at += 1) if (arena[at] !== key.charCodeAt(i)) return false;
    return true;
  }

  /** Makes room for one more record of `bytes` (under the lock): the index rebuilt larger, or the table emptied. */
  private roomFor(bytes: number): boolean {
    const slots = Atomics.load(this.cells, CELL.slots);
    if (Atomics.load(this.cells, CELL.used) + 1 > slots * LOAD) {
      if (slots < this.maxSlots) this.rebuild(slots * 2);
      else if (!this.clear()) return false;
    }
    if (Atomics.load(this.cells, CELL.tail) + bytes + 3 > this.arena.length) return this.clear();
    return true;
  }

  private insert(key: string, hash: number, values: readonly Buffer[], mark: number, bytes: number): void {
    const slot = this.probe(key, hash);
    const held = Atomics.load(this.index, slot * 2) !== 0;
    if (held && this.arenaCells[(Atomics.load(this.index, slot * 2 + 1) - 1) >> 2] === this.markOf(hash)) return; // another thread kept it
    const offset = Atomics.load(this.cells, CELL.tail);
    this.writeRecord(offset, key, values, mark, bytes);
    Atomics.store(this.cells, CELL.tail, (offset + bytes + 3) & ~3);
    Atomics.store(this.index, slot * 2 + 1, offset + 1);
    if (held) return;
    Atomics.store(this.index, slot * 2, hash);
    Atomics.add(this.cells, CELL.used, 1);
  }

  private writeRecord(offset: number, key: string, values: readonly Buffer[], mark: number, bytes: number): void {
    const arena = this.arena;
    this.arenaCells[offset >> 2] = mark;
    const valuesLength = bytes - RECORD_HEAD - key.length;
    arena[offset + 4] = key.length & 0xff;
    arena[offset + 5] = key.length >> 8;
    arena[offset + 6] = valuesLength & 0xff;
    arena[offset + 7] = valuesLength >> 8;
    let at = offset + RECORD_HEAD + this.arenaBytes.write(key, offset + RECORD_HEAD, 'latin1');
    for (const value of values) {
      arena[at] = value.length & 0xff;
      arena[at + 1] = value.length >> 8;
      arena.set(value, at + 2);
      at += 2 + value.length;
    }
  }

  /** The index at `slots` slots, every record kept (under the lock; readers miss meanwhile). */
  private rebuild(slots: number): void {
    const old = this.index.slice(0, Atomics.load(this.cells, CELL.slots) * 2);
    this.begin();
    this.index.fill(0, 0, slots * 2);
    const mask = slots - 1;
    for (let cell = 0; cell < old.length; cell += 2) {
      if (old[cell] === 0) continue;
      let slot = old[cell]! & mask;
      while (this.index[slot * 2] !== 0) slot = (slot + 1) & mask;
      this.index[slot * 2] = old[cell]!;
      this.index[slot * 2 + 1] = old[cell + 1]!;
    }
    Atomics.store(this.cells, CELL.slots, slots);
    this.end();
  }

  /** Empties the table (under the lock), unless it was emptied less than CLEAR_INTERVAL_S ago. */
  private clear(): boolean {
    const now = Math.floor(Date.now() / 1000);
    const last = Atomics.load(this.cells, CELL.clearedAt);
    if (last !== 0 && now - last < CLEAR_INTERVAL_S) return false;
    this.begin();
    this.index.fill(0, 0, Atomics.load(this.cells, CELL.slots) * 2);
    Atomics.store(this.cells, CELL.used, 0);
    Atomics.store(this.cells, CELL.tail, 0);
    Atomics.store(this.cells, CELL.clearedAt, now);
    this.end();
    return true;
  }

  private begin(): void {
    Atomics.add(this.cells, CELL.generation, 1);
  }

  private end(): void {
    Atomics.add(this.cells, CELL.generation, 1);
  }
}

/** Makes every record of these tables stale (a thread died with writes in flight: which of them LevelDB has is unknown). */
export function staleTables(memory: TableMemory): void {
  for (const buffer of [memory.passwords, memory.equalities, memory.records]) if (buffer !== undefined) new SharedTable(buffer).touchedAll();
}
