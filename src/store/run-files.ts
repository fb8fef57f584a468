/**
 * Sorted runs on disk, for a bulk load written in key order (sorted-load.ts): operations are
 * gathered up to a budget of bytes, sorted by key and written to a file of their own (a run);
 * at the end the runs are merged, so the operations come out in key order whatever order they
 * went in, while memory holds one run being gathered, or a block of each run being merged.
 *
 * A run file is a sequence of records, each
 *
 *   u32le key bytes | key (UTF-8) | u32le value bytes | value
 *
 * Keys are compared as JavaScript strings (UTF-16 code units), which is LevelDB's byte order of
 * their UTF-8 except between characters beyond the BMP and those from U+E000 to U+FFFF. The
 * order only decides how well LevelDB can place the tables it writes, never what is stored:
 * LevelDB orders every key itself. A run holds each key once, with the value of its last put
 * (most keys are index keys, whose value is empty: the gathered keys are sorted as plain strings,
 * 2.7x faster than objects through a comparator, and the few values are kept by key); among
 * equal keys of different runs, the merge gives an earlier run's first, so the last put of a key
 * still wins.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A put of a bulk load: the only operation a run holds. */
export interface RunOp {
  readonly type: 'put';
  readonly key: string;
  readonly value: Buffer;
}

/** What gathering an operation costs against the budget beyond its key and value: the array slot, the string's header, a kept value's map entry. */
const OP_OVERHEAD = 96;
const WRITE_BLOCK = 1 << 20;
const READ_BLOCK = 1 << 20;
const LENGTH_BYTES = 4;
/** UTF-8 bytes a UTF-16 code unit takes at most: room for a key without measuring it first. */
const MAX_UTF8_PER_UNIT = 3;
/** Most operations of a load are index keys, whose value is empty: one buffer for them all. */
const EMPTY = Buffer.alloc(0);

/** A key of a run and where its record starts in the file: a run can be read from there on. */
export interface RunMark {
  readonly key: string;
  readonly offset: number;
  /** The run's records and bytes from here to the next mark (or the run's end). */
  readonly records: number;
  readonly bytes: number;
}

/** Marks noted per run, at equal counts of records. */
const MARKS_PER_RUN = 32;

/** Keys from `from` (included) to `to` (excluded); either end may be open. */
export interface KeyRange {
  readonly from?: string;
  readonly to?: string;
}

/** Gathers operations and writes them out as sorted runs in `dir`, each of about `budget` bytes. */
export class RunWriter {
  readonly runs: string[] = [];
  /** Each run's marks, in key order. */
  readonly marks: RunMark[][] = [];
  private keys: string[] = [];
  private values = new RunValues();
  private bytes = 0;

  constructor(private readonly dir: string, private readonly budget: number) {}

  add(op: RunOp): void {
    this.keys.push(op.key);
    if (op.value.length > 0) this.values.set(op.key, op.value);
    else this.values.clear(op.key);
    this.bytes += op.key.length * 2 + op.value.length + OP_OVERHEAD;
    if (this.bytes >= this.budget) this.spill();
  }

  /** Writes what is gathered as a run (nothing when nothing is). */
  spill(): void {
    if (this.keys.length === 0) return;
    const path = join(this.dir, `run-${this.runs.length}`);
    this.marks.push(writeRun(path, this.keys.sort(), this.values));
    this.runs.push(path);
    this.keys = [];
    this.values = new RunValues();
    this.bytes = 0;
  }
}

/**
 * The value of each gathered key whose last put has one. Most keys of a load never have one (its
 * index keys): a key starting with a character no valued key started with is not looked up, which
 * spares hashing it (a million-user load gathers ten million keys, two million with values).
 */
class RunValues {
  private readonly values = new Map<string, Buffer>();
  /** Which first characters (UTF-16 code units) valued keys had. */
  private readonly starts = new Uint8Array(0x10000);

  set(key: string, value: Buffer): void {
    this.values.set(key, value);
    this.starts[firstUnit(key)] = 1;
  }

  /** An empty put: the key's value, if it had one, is gone. */
  clear(key: string): void {
    if (this.starts[firstUnit(key)] === 1) this.values.delete(key);
  }

  get(key: string): Buffer {
    return this.starts[firstUnit(key)] === 1 ? (this.values.get(key) ?? EMPTY) : EMPTY;
  }
}

/** A key's first UTF-16 code unit (0 for the empty key). */
const firstUnit = (key: string): number => key.charCodeAt(0) | 0;

/** Writes sorted keys, each once, with its kept value (none: empty); returns the run's marks. */
function writeRun(path: string, keys: readonly string[], values: RunValues): RunMark[] {
  const fd = openSync(path, 'w');
  const marks: { key: string; offset: number; index: number }[] = [];
  let end = 0;
  const every = Math.max(1, Math.ceil(keys.length / MARKS_PER_RUN));
  try {
    let block = Buffer.allocUnsafe(WRITE_BLOCK);
    let at = 0;
    let written = 0;
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      if (i > 0 && key === keys[i - 1]) continue;
      const value = values.get(key);
      const need = 2 * LENGTH_BYTES + MAX_UTF8_PER_UNIT * key.length + value.length;
      if (at + need > block.length) {
        writeSync(fd, block, 0, at);
        written += at;
        at = 0;
        if (need > block.length) block = Buffer.allocUnsafe(need);
      }
      if (i % every === 0) marks.push({ key, offset: written + at, index: i });
      at = encodeRecord(block, at, key, value);
    }
    writeSync(fd, block, 0, at);
    end = written + at;
  } finally {
    closeSync(fd);
  }
  return marks.map(({ key, offset, index }, i) => {
    const next = marks[i + 1];
    return { key, offset, records: (next?.index ?? keys.length) - index, bytes: (next?.offset ?? end) - offset };
  });
}

/**
 * What writing a record costs beside its bytes, in bytes' worth: a million-user load's table
 * writers took about 0.68 µs a record and 6 ns a byte (docs/performance.md).
 */
export const RECORD_COST_BYTES = 112;

/** What a mark's stretch of its run costs to write as tables, in bytes' worth. */
const markCost = (mark: RunMark): number => mark.bytes + mark.records * RECORD_COST_BYTES;

/**
 * Keys that cut the runs into `parts` ranges of about equal cost to write, in order (the marks'
 * quantiles, each mark weighed by its records and bytes: a load's entry records are a tenth of
 * its keys and most of its bytes); fewer when there are not enough distinct marks.
 */
export function splitKeys(marks: readonly (readonly RunMark[])[], parts: number): string[] {
  const sorted = marks.flat().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const total = sorted.reduce((sum, mark) => sum + markCost(mark), 0);
  const splits: string[] = [];
  let before = 0;
  for (const mark of sorted) {
    const part = splits.length + 1;
    if (part < parts && before >= (total * part) / parts && mark.key !== sorted[0]!.key && mark.key !== splits.at(-1)) splits.push(mark.key);
    before += markCost(mark);
  }
  return splits;
}

/** Where to start reading a run for keys from `from` on: the last mark before it (the run's start when none). */
export function startOffset(marks: readonly RunMark[], from: string | undefined): number {
  let offset = 0;
  if (from === undefined) return offset;
  for (const mark of marks) {
    if (mark.key >= from) break;
    offset = mark.offset;
  }
  return offset;
}

function encodeRecord(block: Buffer, at: number, key: string, value: Buffer): number {
  const keyBytes = block.write(key, at + LENGTH_BYTES, 'utf8');
  block.writeUInt32LE(keyBytes, at);
  let next = at + LENGTH_BYTES + keyBytes;
  block.writeUInt32LE(value.length, next);
  next += LENGTH_BYTES;
  return next + value.copy(block, next);
}

/** Reads a run's records in order, a block at a time. */
export class RunReader {
  key = '';
  value: Buffer = EMPTY;
  private block: Buffer = EMPTY;
  private at = 0;
  private ended = false;

  constructor(private readonly fd: number, readonly order: number, private position = 0) {}

  /** A reader of the run at `path` from the record starting at byte `start`. */
  static open(path: string, order: number, start = 0): RunReader {
    return new RunReader(openSync(path, 'r'), order, start);
  }

  /** Moves to the next record; false at the end of the run. */
  next(): boolean {
    if (!this.have(LENGTH_BYTES)) return false;
    const keyBytes = this.block.readUInt32LE(this.at);
    if (!this.have(2 * LENGTH_BYTES + keyBytes)) throw new Error('a sorted run ends inside a record');
    const valueBytes = this.block.readUInt32LE(this.at + LENGTH_BYTES + keyBytes);
    const length = 2 * LENGTH_BYTES + keyBytes + valueBytes;
    if (!this.have(length)) throw new Error('a sorted run ends inside a record');
    this.key = this.block.toString('utf8', this.at + LENGTH_BYTES, this.at + LENGTH_BYTES + keyBytes);
    this.value = valueBytes === 0 ? EMPTY : this.block.subarray(this.at + length - valueBytes, this.at + length);
    this.at += length;
    return true;
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * Whether `bytes` more are in hand, reading on when not. A new block each time: values handed
   * out are views of the old one and stay valid.
   */
  private have(bytes: number): boolean {
    if (this.block.length - this.at >= bytes) return true;
    if (this.ended) return false;
    const rest = this.block.subarray(this.at);
    const block = Buffer.allocUnsafe(Math.max(READ_BLOCK, bytes));
    rest.copy(block);
    let filled = rest.length;
    while (filled < block.length && !this.ended) {
      const read = readSync(this.fd, block, filled, block.length - filled, this.position);
      this.position += read;
      if (read === 0) this.ended = true;
      filled += read;
    }
    this.block = block.subarray(0, filled);
    this.at = 0;
    return filled >= bytes;
  }
}

/** Whether reader `a` comes before `b`: by key, then by run. */
const before = (a: RunReader, b: RunReader): boolean => a.key < b.key || (a.key === b.key && a.order < b.order);

/** Moves the reader to its first record at or after `from`; false when there is none. */
function seek(reader: RunReader, from: string | undefined): boolean {
  while (reader.next()) if (from === undefined || reader.key >= from) return true;
  return false;
}

/**
 * The runs' operations merged into key order, `batchSize` at a time (a binary heap of one
 * reader per run), those in `range` only: each run read from `starts[i]` (a mark's offset
 * before the range, startOffset), the merge ending at the range's end. Every run is closed when
 * the generator ends, however it ends.
 */
export function* mergeRuns(paths: readonly string[], batchSize: number, range: KeyRange = {}, starts: readonly number[] = []): Generator<RunOp[]> {
  const readers = paths.map((path, order) => RunReader.open(path, order, starts[order] ?? 0));
  try {
    const heap = readers.filter((reader) => seek(reader, range.from));
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
    let batch: RunOp[] = [];
    while (heap.length > 0) {
      const top = heap[0]!;
      if (range.to !== undefined && top.key >= range.to) break;
      batch.push({ type: 'put', key: top.key, value: top.value });
      if (!top.next()) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      }
      siftDown(heap, 0);
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    for (const reader of readers) reader.close();
  }
}

function siftDown(heap: RunReader[], from: number): void {
  let i = from;
  for (;;) {
    const left = 2 * i + 1;
    let least = i;
    if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
    if (left + 1 < heap.length && before(heap[left + 1]!, heap[least]!)) least = left + 1;
    if (least === i) return;
    [heap[i], heap[least]] = [heap[least]!, heap[i]!];
    i = least;
  }
}
