/**
 * A load's tables written over several threads: the runs' keys cut into ranges of about equal
 * cost (their marks' quantiles, run-files.ts), a few per thread so that a range costing more than
 * the estimate leaves no thread idle for long; a worker thread per core takes the next range
 * when done with one, merging the runs from a mark before the range (startOffset) and writing
 * the range's tables (load.ts) with file numbers of its own.
 * LevelDB's last level holds tables of any number in any order of writing as long as their keys
 * do not overlap; describeLoad checks that and names them all.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { mergeRuns, splitKeys, startOffset, type KeyRange, type RunMark, type RunOp } from '../run-files.js';
import { addMerged, describeLoad, KeyOrderError, nextFileNumber, removeTables, TableLoad, TABLE_BYTES } from './load.js';
import type { TableMeta } from './table-file.js';

const WORKER_ENTRY = new URL('./range-worker.js', import.meta.url);
/** File numbers each range may use: far more tables than a load writes. */
const NUMBERS_PER_RANGE = 1_000_000;
const MAX_THREADS = 4;
/**
 * Ranges per thread. Cut in two at a million users the ranges' writers took 5.7 and 8.8 s, the
 * slower alone for the last 3 s; cut in eight, a thread that is done takes the next range.
 */
const RANGES_PER_THREAD = 4;
/** Operations merged at a time. */
const MERGE_BATCH = 10_000;

/** What a range's worker is given. */
export interface RangeJob {
  readonly dir: string;
  readonly paths: readonly string[];
  readonly starts: readonly number[];
  readonly range: KeyRange;
  /** The records the database held, in this range. */
  readonly records: readonly RunOp[];
  readonly firstNumber: number;
  readonly tableBytes: number;
}

/** Why a range's worker failed: the message, and for a file's error (no space, an I/O error) Node's code and call. */
export interface RangeFailure {
  readonly error: string;
  readonly keyOrder: boolean;
  readonly code?: string;
  readonly syscall?: string;
  readonly errno?: number;
  readonly path?: string;
}

/** What a range's worker answers. */
export type RangeResult = { readonly tables: TableMeta[] } | RangeFailure;

/** A worker's error as a message can carry it (an Error crosses a thread without its code and call). */
export function rangeFailure(error: unknown): RangeFailure {
  const { code, syscall, errno, path } = error as NodeJS.ErrnoException;
  return { error: (error as Error).message, keyOrder: error instanceof KeyOrderError, code, syscall, errno, path };
}

/** The error a worker's failure stands for on this side: KeyOrderError, or an Error with the file's code and call. */
function failureError(failure: RangeFailure): Error {
  if (failure.keyOrder) return new KeyOrderError(failure.error);
  const { code, syscall, errno, path } = failure;
  const fileError = syscall === undefined ? {} : { code, syscall, errno, path };
  return Object.assign(new Error(failure.error), fileError);
}

/** Writes one range's tables (in a worker, or here); on failure removes them and throws. */
export function loadRange(job: RangeJob): TableMeta[] {
  const load = new TableLoad(job.dir, job.tableBytes, job.firstNumber);
  try {
    addMerged(load, job.records, mergeRuns(job.paths, MERGE_BATCH, job.range, job.starts));
    return load.finishTables();
  } catch (error) {
    load.abandon();
    throw error;
  }
}

/** The runs a load gathered: their files and marks. */
export interface Runs {
  readonly paths: readonly string[];
  readonly marks: readonly (readonly RunMark[])[];
}

/**
 * Writes the runs, with the records the database held (key order), as the database's tables,
 * the ranges shared by a few worker threads; then the descriptor. On failure every table written is removed and
 * the database is as it was.
 */
export async function loadInRanges(dir: string, runs: Runs, records: readonly RunOp[], tableBytes = TABLE_BYTES): Promise<void> {
  const threads = Math.min(MAX_THREADS, availableParallelism());
  const splits = splitKeys(runs.marks, threads * RANGES_PER_THREAD);
  const ranges: KeyRange[] = [...splits, undefined].map((to, i) => ({ from: i === 0 ? undefined : splits[i - 1], to }));
  const first = nextFileNumber(dir);
  const jobs = ranges.map((range, i): RangeJob => ({
    dir, paths: runs.paths, range, tableBytes, firstNumber: first + i * NUMBERS_PER_RANGE,
    starts: runs.marks.map((marks) => startOffset(marks, range.from)),
    records: records.filter((record) => inRange(record.key, range)),
  }));
  const results = await onThreads(jobs, threads);
  const tables = results.flatMap((result) => (result && 'tables' in result ? result.tables.map(asBuffers) : []));
  const failed = results.find((result) => result && 'error' in result);
  try {
    if (failed && 'error' in failed) throw failureError(failed);
    if (results.includes(undefined)) throw new Error('a range of the load was not written');
    describeLoad(dir, tables);
  } catch (error) {
    removeTables(dir, tables);
    throw error;
  }
}

const inRange = (key: string, range: KeyRange): boolean => (range.from === undefined || key >= range.from) && (range.to === undefined || key < range.to);

/**
 * The jobs on `threads` worker threads, each taking the next job when done with one; the results
 * in the jobs' order. After a failure no further job is started (its result stays missing).
 */
async function onThreads(jobs: readonly RangeJob[], threads: number): Promise<(RangeResult | undefined)[]> {
  const results: (RangeResult | undefined)[] = new Array(jobs.length).fill(undefined);
  let next = 0;
  let failed = false;
  const thread = async (): Promise<void> => {
    const worker = new Worker(WORKER_ENTRY);
    try {
      while (!failed && next < jobs.length) {
        const at = next++;
        const result = await ask(worker, jobs[at]!);
        results[at] = result;
        failed ||= 'error' in result;
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, jobs.length) }, thread));
  return results;
}

/** One job's answer from a worker; a worker that fails or exits answers with the failure. */
function ask(worker: Worker, job: RangeJob): Promise<RangeResult> {
  return new Promise((resolve) => {
    const answer = (result: RangeResult): void => {
      worker.off('message', answer).off('error', failure).off('exit', exited);
      resolve(result);
    };
    const failure = (error: Error): void => answer(rangeFailure(error));
    const exited = (code: number): void => answer({ error: `a table-writing thread exited (${code})`, keyOrder: false });
    worker.on('message', answer).on('error', failure).on('exit', exited);
    worker.postMessage(job);
  });
}

/** A table's keys come back from a worker as Uint8Arrays: Buffers again. */
const asBuffers = (table: TableMeta): TableMeta => ({
  ...table,
  smallest: Buffer.from(table.smallest.buffer, table.smallest.byteOffset, table.smallest.length),
  largest: Buffer.from(table.largest.buffer, table.largest.byteOffset, table.largest.length),
});
