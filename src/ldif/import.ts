/**
 * Offline bulk import (like slapadd): LDIF records in, entries stored in order, passwords hashed
 * on the way a batch at a time (PBKDF2 runs in libuv's thread pool, a thread per core). Each
 * problem names its line; with `continueOnError` the entry is skipped and counted.
 *
 * With `workers`, worker threads read and plan parts of the file (import-worker.ts: parsing, DN
 * normalization, the schema check, record encoding, index keys) and the main thread only checks
 * each planned entry against what exists, in file order, and writes the batches.
 */
import { BulkLoader, type BulkTarget } from '../store/bulk.js';
import type { PlanContext } from '../store/bulk-plan.js';
import { LdifError } from './errors.js';
import { ldifParts } from './import-chunks.js';
import { hashedAndPlanned, ImportProblem, ldifProblem, prepareRecord, type Outcome } from './import-plan.js';
import { unpackChunk, type Received, type WireChunk, type WireFatal } from './import-wire.js';
import { PlanWorkers } from './import-workers.js';
import { PartsInFlight } from './in-flight.js';
import type { HashPolicy } from './passwords.js';
import { DEFAULT_MAX_RECORD_BYTES, readLdifBatches } from './reader.js';
import { FileState } from './records.js';

export { ImportProblem } from './import-plan.js';

/**
 * The file's bytes out with the workers at once: 128 parts of 64 KiB, enough for them to go on
 * planning while the main thread writes a sorted run (docs/performance.md, "Parts in flight").
 */
const IN_FLIGHT_BYTES = 8 << 20;

export interface ImportOptions {
  readonly hash: HashPolicy;
  readonly continueOnError: boolean;
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Entries without a parent that may start a naming context (see BulkLoader). */
  readonly suffixes?: readonly string[];
  /** Check every entry against the schema in force (default true; --no-schema-check: false). */
  readonly schemaCheck?: boolean;
  /** Worker threads that read and plan the records (default 0: all on the calling thread). */
  readonly workers?: number;
  /** The schema files in force beside the built-in ones (installSchema), for the worker threads to load too. */
  readonly schemaFiles?: readonly string[];
  /** Called after each stored entry. */
  readonly onEntry?: () => void;
  /** Called for each skipped entry (only with continueOnError). */
  readonly onSkip?: (problem: ImportProblem) => void;
}

export interface ImportResult {
  readonly imported: number;
  readonly skipped: number;
}

class Importer {
  imported = 0;
  skipped = 0;
  readonly loader: BulkLoader;

  constructor(store: BulkTarget, private readonly options: ImportOptions) {
    this.loader = new BulkLoader(store, { actor: options.actor ?? '', suffixes: options.suffixes, schemaCheck: options.schemaCheck ?? true });
  }

  skip(problem: ImportProblem): void {
    if (!this.options.continueOnError) throw problem;
    this.skipped += 1;
    this.options.onSkip?.(problem);
  }

  /**
   * Stores the planned entries of a batch, then reports every outcome in input order. Without
   * continueOnError, nothing after the first problem is stored: the import stops there.
   */
  async store(outcomes: readonly Outcome[]): Promise<void> {
    const firstFailure = outcomes.findIndex((outcome) => !outcome.ok);
    const considered = this.options.continueOnError || firstFailure === -1 ? outcomes : outcomes.slice(0, firstFailure + 1);
    const ready = considered.flatMap((outcome) => (outcome.ok ? [outcome] : []));
    const results = await this.loader.placeAll(ready.map((outcome) => outcome.plan), !this.options.continueOnError);
    let next = 0;
    for (const outcome of considered) {
      if (!outcome.ok) {
        this.skip(outcome.problem);
        continue;
      }
      const error = results[next++];
      if (error) {
        this.skip(new ImportProblem(outcome.line, outcome.plan.dn, error.message));
      } else {
        this.imported += 1;
        this.options.onEntry?.();
      }
    }
  }

  finish(): Promise<void> {
    return this.loader.finish();
  }
}

/** Every outcome of a batch, once the ones that hash passwords have. */
function settled(outcomes: (Outcome | Promise<Outcome>)[]): Outcome[] | Promise<Outcome[]> {
  return outcomes.some((outcome) => outcome instanceof Promise) ? Promise.all(outcomes) : (outcomes as Outcome[]);
}

async function importHere(importer: Importer, input: AsyncIterable<Buffer | string>, hash: HashPolicy): Promise<void> {
  const context = importer.loader.planContext;
  for await (const items of readLdifBatches(input, { keepErrors: true })) {
    await importer.store(await settled(items.map((item) => prepareRecord(item, hash, context))));
  }
}

/** The error that ended a worker's reading of its part, as the reader threw it. */
function fatalError(fatal: WireFatal): Error {
  return fatal.line === undefined ? new Error(fatal.message) : new LdifError(fatal.line, fatal.message.replace(/^line \d+: /, ''));
}

/** The main thread's share of a worker's outcome: the file-wide rule first, then any hashing. */
function inFileOrder(received: Received, files: FileState, hash: HashPolicy, context: PlanContext): Outcome | Promise<Outcome> {
  try {
    if (received.kind !== undefined) files.check({ kind: received.kind, line: 'line' in received ? received.line : lineOf(received.outcome) });
  } catch (error) {
    if (error instanceof LdifError) return ldifProblem(error);
    throw error;
  }
  return 'hash' in received ? hashedAndPlanned(received.line, received.hash, hash, context) : received.outcome;
}

const lineOf = (outcome: Outcome): number => (outcome.ok ? outcome.line : outcome.problem.line);

async function importInWorkers(importer: Importer, input: AsyncIterable<Buffer | string>, options: ImportOptions, count: number): Promise<void> {
  const context = importer.loader.planContext;
  const workers = new PlanWorkers(count, {
    actor: context.actor, indexed: [...context.indexed], schemaCheck: context.schemaCheck, schemaFiles: options.schemaFiles ?? [],
    schemeNames: options.hash.registry.names(), maxRecordBytes: DEFAULT_MAX_RECORD_BYTES,
  });
  const files = new FileState();
  const store = async (chunk: WireChunk): Promise<void> => {
    await importer.store(await settled(unpackChunk(chunk).map((received) => inFileOrder(received, files, options.hash, context))));
    if (chunk.fatal) throw fatalError(chunk.fatal);
  };
  const inFlight = new PartsInFlight(IN_FLIGHT_BYTES, store);
  try {
    for await (const part of ldifParts(input, DEFAULT_MAX_RECORD_BYTES)) await inFlight.add(workers.plan(part), part.bytes.length);
    await inFlight.drain();
  } finally {
    await workers.close();
  }
}

/** Imports into a DirectoryStore, or any other BulkTarget (a PostgreSQL store's table). */
export async function importLdif(
  store: BulkTarget, input: AsyncIterable<Buffer | string>, options: ImportOptions,
): Promise<ImportResult> {
  const importer = new Importer(store, options);
  const workers = options.workers ?? 0;
  try {
    if (workers > 0) await importInWorkers(importer, input, options, workers);
    else await importHere(importer, input, options.hash);
  } finally {
    await importer.finish();
  }
  return { imported: importer.imported, skipped: importer.skipped };
}
