/**
 * `leveldap import-ldif FILE|-`: offline bulk load into the database, like slapadd; with
 * --store postgres://..., into the PostgreSQL store's entries table instead (the same checks,
 * then the nodes copy the rows).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import type { Argv, CommandModule } from 'yargs';
import { importLdif, type ImportProblem } from '../../ldif/index.js';
import { checkPolicy, policyParams, resolveDefaultScheme } from '../../policy/index.js';
import { installSchemaFiles, withSchemaFileOption, type SchemaOptions } from '../options/schema.js';
import { currentSchema, keyTypesChanged, DirectoryStore, KEY_TYPES_ADVICE, KEY_TYPES_CHANGED, LISTED_KEY_TYPES, SortedLoad, UNFINISHED_LOAD, type BulkTarget } from '../../store/index.js';
import { DATA_UNLESS_STORE, DEFAULT_ADMIN_DN, withDataOption, type DataOptions } from '../options/data.js';
import { storeFromOptions, withStoreUrlOption, type StoreOptions } from '../options/store.js';
import { CliError } from '../support/errors.js';
import { policyFromOptions, schemaFilesOf, withPolicyFileOption, type PolicyFileOption } from '../options/policy.js';
import { createProgress, type Progress } from '../support/progress.js';
import { registryFromOptions, schemeParams, withParamOption, withSchemeOptions, type ParamOption, type SchemeOptions } from '../options/schemes.js';
import { errorCode } from '../../errors.js';

interface ImportArgs extends SchemeOptions, DataOptions, Pick<StoreOptions, 'store'>, PolicyFileOption, ParamOption, SchemaOptions {
  file: string;
  scheme?: string;
  iterations?: number;
  'continue-on-error': boolean;
  'allow-clear': boolean;
  'admin-dn': string;
  suffix?: string[];
  compact: boolean;
  sort?: boolean;
  'schema-check': boolean;
  workers: number;
}

function builder(yargs: Argv): Argv<ImportArgs> {
  const store = withStoreUrlOption(withDataOption(withSchemeOptions(yargs), DATA_UNLESS_STORE), 'load into this PostgreSQL store instead of --data');
  return withSchemaFileOption(withParamOption(withPolicyFileOption(store)))
    .positional('file', { type: 'string', demandOption: true, describe: 'LDIF file, or - for standard input' })
    .option('scheme', { type: 'string', requiresArg: true, describe: 'hash plain-text userPassword values with this scheme (default: the policy\'s import scheme, PBKDF2-SHA256)' })
    .option('iterations', { type: 'number', requiresArg: true, describe: 'iterations for the import scheme (default: the policy\'s defaultIterations, else the scheme\'s)' })
    .option('continue-on-error', { type: 'boolean', default: false, describe: 'skip entries that cannot be imported, count them, exit 1' })
    .option('allow-clear', { type: 'boolean', default: false, describe: 'allow --scheme CLEAR (passwords stored in clear)' })
    .option('admin-dn', { type: 'string', default: DEFAULT_ADMIN_DN, describe: 'creatorsName of imported entries that lack one' })
    .option('suffix', { type: 'string', array: true, requiresArg: true, describe: 'an entry without a parent that may start a naming context (repeatable)' })
    .option('schema-check', { type: 'boolean', default: true, describe: 'check every entry against the schema (--no-schema-check: load data from a directory with a laxer past, as slapadd -s)' })
    .option('workers', { type: 'number', default: defaultWorkers(), requiresArg: true, describe: 'worker threads that parse and prepare the entries (0: all on the main thread, which writes in any case)' })
    .option('compact', { type: 'boolean', default: true, describe: 'compact the database after the load (--no-compact: leave it to LevelDB; not with --store)' })
    .option('sort', { type: 'boolean', describe: `into an empty database, write in key order through sorted runs kept in --data (free disk of about 2.5x the file's size while it runs), leaving nothing to compact; default: for a file over ${SORT_ABOVE_MB} MiB` }) as Argv<ImportArgs>;
}

/** One worker thread per core, the main thread writing beside them: the most that helped here (docs/performance.md, "Import speed"). */
function defaultWorkers(): number {
  return Math.min(availableParallelism(), MAX_DEFAULT_WORKERS);
}

const MAX_DEFAULT_WORKERS = 8;

function workerCount(given: number): number {
  if (!Number.isSafeInteger(given) || given < 0 || given > 64) throw new CliError(`--workers must be a whole number from 0 to 64, not ${given}`);
  return given;
}

/** A bulk load reads as much as it writes (existence checks): a larger block cache than serving needs. */
const IMPORT_CACHE_MB = 64;

/**
 * A bulk load's memtable: 100,000 users fit in it, so LevelDB merges no tables while the load
 * runs and the compaction after it writes each table once (its background thread used 0.8 s of
 * CPU instead of 3.1 s with serve's 32 MiB: docs/performance.md, "Import speed"). Native memory,
 * at most this much, whatever the file's size.
 */
const IMPORT_WRITE_BUFFER_MB = 256;

/** Where a load into an empty database keeps its sorted runs (sorted-load.ts), inside the data directory. */
const RUNS_DIR = 'import-runs';

/**
 * Files up to this size are loaded as they come: the sorted load's fixed costs (its ledger, the
 * database closed and opened again, a thread per range) outweigh what it saves. With the tables
 * written by the load itself, sorted took 1.04x-1.08x the time for 40,000 make-ldif users (27 MB)
 * and 1.18x-1.35x for 10,000, but 0.85x-0.96x for 100,000 (69 MB) and 0.86x-0.94x for 200,000
 * (137 MB), with less peak memory (docs/performance.md, "LevelDB's tables written by the load
 * itself"; 256 MiB before, when the merge went through LevelDB).
 */
const SORT_ABOVE_MB = 48;

/**
 * Whether to load in key order: as asked, else for files over SORT_ABOVE_MB (standard input,
 * whose size is not known, as it comes: the runs need free disk that a small load should not).
 */
function sortedLoad(args: ImportArgs, size: number | undefined): boolean {
  return args.sort ?? (size !== undefined && size > SORT_ABOVE_MB << 20);
}

/** yargs hands a lone "-" over as "". */
const isStdin = (file: string): boolean => file === '-' || file === '';

/**
 * How much of the file is read at a time, which is also the size of a worker thread's part (and
 * of a batch of records without workers). A part's planned entries live until the part is done:
 * with 1 MiB parts (about 1,500 entries) most of what a worker allocated survived its young
 * generation's collections and was copied twice, and the collector took a third of the import's
 * CPU; 64 KiB parts cut 100,000 users from 15.3 to 11.7 CPU-seconds (docs/performance.md, "Import speed").
 */
const READ_BYTES = 64 << 10;

function openInput(file: string): Readable {
  return isStdin(file) ? process.stdin : createReadStream(file, { highWaterMark: READ_BYTES });
}

/** The input's chunks, counted for the progress bar as they are read. */
async function* counted(input: Readable, progress: Progress): AsyncGenerator<Buffer> {
  for await (const chunk of input) {
    progress.bytes((chunk as Buffer).byteLength);
    yield chunk as Buffer;
  }
}

async function inputSize(file: string): Promise<number | undefined> {
  if (isStdin(file)) return undefined;
  const found = await stat(file).catch((error: unknown) => {
    throw new CliError(`cannot read ${file}: ${errorCode(error) ?? String(error)}`);
  });
  if (found.isDirectory()) throw new CliError(`cannot read ${file}: it is a directory, not an LDIF file`);
  return found.size;
}

/** Compacts after a load, saying how long it took. */
async function compact(store: DirectoryStore): Promise<void> {
  const started = performance.now();
  await store.compact();
  process.stdout.write(`compacted the database in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

/** Where the entries go: the LevelDB at --data (compacted after a load), or a PostgreSQL store. */
interface ImportTarget {
  readonly target: BulkTarget;
  loaded(imported: number): Promise<void>;
  close(): Promise<void>;
}

async function openTarget(args: ImportArgs, size: number | undefined): Promise<ImportTarget> {
  const { url } = await storeFromOptions({ store: args.store }, args.config);
  if (url !== undefined) {
    const { EntriesTable } = await import('../../store/postgres/index.js'); // loaded only for a PostgreSQL store
    const table = await EntriesTable.open(url, 'load');
    return { target: table, loaded: async () => {}, close: () => table.close() };
  }
  const store = await DirectoryStore.open(args.data, { cacheMb: IMPORT_CACHE_MB, writeBufferMb: IMPORT_WRITE_BUFFER_MB });
  const unfinished = await store.getMeta(UNFINISHED_LOAD);
  if (unfinished !== undefined) {
    process.stderr.write(`leveldap: an earlier import into ${args.data} did not finish (it started ${unfinished}); what it wrote is kept, and the database counts as complete once this import ends\n`);
  }
  const changed = await keyTypesChanged(store, currentSchema());
  if (changed.length > 0) process.stderr.write(`leveldap: ${KEY_TYPES_CHANGED} (${changed.slice(0, LISTED_KEY_TYPES).join(', ')}${changed.length > LISTED_KEY_TYPES ? ', ...' : ''}); ${KEY_TYPES_ADVICE}\n`);
  const target = await SortedLoad.over(store, join(args.data, RUNS_DIR), sortedLoad(args, size));
  return {
    target,
    loaded: async (imported) => {
      if (imported === 0) return;
      if (target instanceof SortedLoad) process.stdout.write('written in key order: nothing to compact\n');
      else if (args.compact) await compact(store);
    },
    close: () => store.close(),
  };
}

function report(imported: number, skipped: number, started: number): string {
  const seconds = (performance.now() - started) / 1000;
  const rate = Math.round(imported / Math.max(seconds, 0.001));
  const skippedText = skipped > 0 ? `, ${skipped} skipped` : '';
  return `imported ${imported} entries${skippedText} in ${seconds.toFixed(1)} s (${rate} entries/s)\n`;
}

async function handler(args: ImportArgs): Promise<void> {
  const workers = workerCount(args.workers);
  const schemaFiles = [...(await schemaFilesOf(args.config)), ...(args.schema ?? [])];
  installSchemaFiles(schemaFiles);
  const registry = await registryFromOptions(args);
  const policy = await policyFromOptions({ config: args.config });
  checkPolicy(registry, policy);
  const scheme = resolveDefaultScheme(registry, args.scheme ?? policy.importScheme ?? policy.defaultScheme, args['allow-clear']).names[0]!;
  const fromPolicy = args.iterations === undefined && args.param === undefined;
  const params = fromPolicy ? policyParams(registry, scheme, policy) : schemeParams({ iterations: args.iterations, param: args.param });
  registry.validateParams(scheme, params);
  const size = await inputSize(args.file);
  const progress: Progress = createProgress(size);
  const input = openInput(args.file);
  const store = await openTarget(args, size);
  const started = performance.now();
  let imported = 0;
  try {
    const result = await importLdif(store.target, counted(input, progress), {
      hash: { registry, scheme, params }, continueOnError: args['continue-on-error'], actor: args['admin-dn'], suffixes: args.suffix,
      schemaCheck: args['schema-check'], workers, schemaFiles,
      onEntry: () => { imported += 1; progress.entry(); },
      onSkip: (problem: ImportProblem) => process.stderr.write(`leveldap: skipped ${problem.message}\n`),
    });
    progress.stop();
    process.stdout.write(report(result.imported, result.skipped, started));
    if (result.skipped > 0) process.exitCode = 1;
    await store.loaded(result.imported);
  } catch (error) {
    progress.stop();
    if (!(error instanceof Error) || !('line' in error)) throw error;
    process.stderr.write(`leveldap: import stopped at ${error.message}; ${imported} entries were imported before it\n`);
    process.exitCode = 1;
  } finally {
    input.destroy();
    await store.close();
  }
}

export const importLdifCommand: CommandModule<object, ImportArgs> = {
  command: 'import-ldif <file>',
  describe: 'bulk-load an LDIF file into the database (offline, like slapadd), or into a PostgreSQL store (--store)',
  builder,
  handler,
};
