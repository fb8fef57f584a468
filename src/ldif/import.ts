/**
 * Offline bulk import (like slapadd): LDIF records in, entries stored in order, passwords hashed
 * on the way with many hashes in flight (PBKDF2 runs in libuv's thread pool, one per core and
 * more). Each problem names its line; with `continueOnError` the entry is skipped and counted.
 */
import { BulkLoader } from '../store/bulk.js';
import { groupAttributes, type Entry } from '../store/entry.js';
import type { DirectoryStore } from '../store/store.js';
import { LdifError } from './errors.js';
import { hashPasswords, type HashPolicy } from './passwords.js';
import { orderedMap, type Settled } from './pipeline.js';
import { readLdif } from './reader.js';
import type { LdifRecord } from './types.js';

export interface ImportOptions {
  readonly hash: HashPolicy;
  readonly continueOnError: boolean;
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Password hashes in flight at once. */
  readonly concurrency?: number;
  /** Called after each stored entry. */
  readonly onEntry?: () => void;
  /** Called for each skipped entry (only with continueOnError). */
  readonly onSkip?: (problem: ImportProblem) => void;
}

export interface ImportResult {
  readonly imported: number;
  readonly skipped: number;
}

/** Why one record was not imported: its line, its DN if known, and the reason. */
export class ImportProblem extends Error {
  override name = 'ImportProblem';
  constructor(readonly line: number, readonly dn: string | undefined, reason: string) {
    super(`line ${line}${dn === undefined ? '' : ` (${dn})`}: ${reason}`);
  }
}

interface Prepared {
  readonly line: number;
  readonly entry: Entry;
}

function toEntry(record: LdifRecord): Entry {
  if (record.kind !== 'entry' && record.kind !== 'add') {
    throw new Error(`changetype ${record.kind} cannot be imported; import-ldif loads entries (use ldapmodify against a server)`);
  }
  return { dn: record.dn, attributes: groupAttributes(record.attributes) };
}

async function prepare(record: LdifRecord, hash: HashPolicy): Promise<Prepared> {
  try {
    return { line: record.line, entry: await hashPasswords(toEntry(record), hash) };
  } catch (error) {
    throw new ImportProblem(record.line, record.dn, (error as Error).message);
  }
}

function asProblem(error: unknown): ImportProblem {
  if (error instanceof ImportProblem) return error;
  if (error instanceof LdifError) return new ImportProblem(error.line, undefined, error.message.replace(/^line \d+: /, ''));
  throw error;
}

/** Entries handed to the store per existence read. */
const CHUNK = 256;

class Importer {
  imported = 0;
  skipped = 0;
  private readonly loader: BulkLoader;

  constructor(store: DirectoryStore, private readonly options: ImportOptions) {
    this.loader = new BulkLoader(store, { actor: options.actor ?? '' });
  }

  skip(problem: ImportProblem): void {
    if (!this.options.continueOnError) throw problem;
    this.skipped += 1;
    this.options.onSkip?.(problem);
  }

  /**
   * Stores the prepared entries of a chunk, then reports every outcome in input order. Without
   * continueOnError, nothing after the first problem is stored: the import stops there.
   */
  async store(outcomes: readonly Settled<Prepared>[]): Promise<void> {
    const firstFailure = outcomes.findIndex((outcome) => !outcome.ok);
    const considered = this.options.continueOnError || firstFailure === -1 ? outcomes : outcomes.slice(0, firstFailure + 1);
    const ready = considered.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
    const results = await this.loader.addAll(ready.map((prepared) => prepared.entry), !this.options.continueOnError);
    let next = 0;
    for (const outcome of considered) {
      if (!outcome.ok) {
        this.skip(asProblem(outcome.error));
        continue;
      }
      const error = results[next++];
      if (error) {
        this.skip(new ImportProblem(outcome.value.line, outcome.value.entry.dn, error.message));
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

type Item = { readonly record: LdifRecord } | { readonly error: LdifError };

/**
 * The records, with the reader's malformed-record errors in their place in the sequence, so a
 * problem is reported (or stops the import) in input order, after the entries before it.
 */
async function* itemsOf(input: AsyncIterable<Buffer | string>): AsyncGenerator<Item> {
  const errors: LdifError[] = [];
  for await (const record of readLdif(input, { onError: (error) => errors.push(error) })) {
    yield* errors.splice(0).map((error) => ({ error }));
    yield { record };
  }
  yield* errors.splice(0).map((error) => ({ error }));
}

function prepareItem(item: Item, hash: HashPolicy): Promise<Prepared> {
  return 'error' in item ? Promise.reject(asProblem(item.error)) : prepare(item.record, hash);
}

export async function importLdif(
  store: DirectoryStore, input: AsyncIterable<Buffer | string>, options: ImportOptions,
): Promise<ImportResult> {
  const importer = new Importer(store, options);
  const chunk: Settled<Prepared>[] = [];
  try {
    for await (const outcome of orderedMap(itemsOf(input), (item) => prepareItem(item, options.hash), options.concurrency ?? 64)) {
      chunk.push(outcome);
      if (chunk.length >= CHUNK || (!outcome.ok && !options.continueOnError)) await importer.store(chunk.splice(0));
    }
    await importer.store(chunk.splice(0));
  } finally {
    await importer.finish();
  }
  return { imported: importer.imported, skipped: importer.skipped };
}
