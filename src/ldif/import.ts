/**
 * Offline bulk import (like slapadd): LDIF records in, entries stored in order, passwords hashed
 * on the way a batch at a time (PBKDF2 runs in libuv's thread pool, a thread per core). Each
 * problem names its line; with `continueOnError` the entry is skipped and counted.
 */
import { BulkLoader } from '../store/bulk.js';
import { groupAttributes, type Entry } from '../store/entry.js';
import type { DirectoryStore } from '../store/store.js';
import { LdifError } from './errors.js';
import { hashPasswords, type HashPolicy } from './passwords.js';
import type { Settled } from './pipeline.js';
import { readLdifBatches } from './reader.js';
import type { LdifRecord } from './types.js';
import { errorMessage } from '../errors.js';

export interface ImportOptions {
  readonly hash: HashPolicy;
  readonly continueOnError: boolean;
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor?: string;
  /** Entries without a parent that may start a naming context (see BulkLoader). */
  readonly suffixes?: readonly string[];
  /** Check every entry against the schema in force (default true; --no-schema-check: false). */
  readonly schemaCheck?: boolean;
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

function problemOf(record: LdifRecord, error: unknown): ImportProblem {
  return new ImportProblem(record.line, record.dn, errorMessage(error));
}

/** The record as an entry ready to store; a promise only when a password must be hashed. */
function prepare(record: LdifRecord, hash: HashPolicy): Settled<Prepared> | Promise<Settled<Prepared>> {
  try {
    const entry = hashPasswords(toEntry(record), hash);
    if (!(entry instanceof Promise)) return { ok: true, value: { line: record.line, entry } };
    return entry.then(
      (hashed) => ({ ok: true, value: { line: record.line, entry: hashed } }) as const,
      (error: unknown) => ({ ok: false, error: problemOf(record, error) }) as const,
    );
  } catch (error) {
    return { ok: false, error: problemOf(record, error) };
  }
}

function asProblem(error: unknown): ImportProblem {
  if (error instanceof ImportProblem) return error;
  if (error instanceof LdifError) return new ImportProblem(error.line, undefined, error.message.replace(/^line \d+: /, ''));
  throw error;
}

class Importer {
  imported = 0;
  skipped = 0;
  private readonly loader: BulkLoader;

  constructor(store: DirectoryStore, private readonly options: ImportOptions) {
    this.loader = new BulkLoader(store, { actor: options.actor ?? '', suffixes: options.suffixes, schemaCheck: options.schemaCheck ?? true });
  }

  skip(problem: ImportProblem): void {
    if (!this.options.continueOnError) throw problem;
    this.skipped += 1;
    this.options.onSkip?.(problem);
  }

  /**
   * Stores the prepared entries of a batch, then reports every outcome in input order. Without
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

/**
 * One batch of records (or malformed-record errors, in their place) made ready to store:
 * passwords are hashed all at once, so PBKDF2 keeps every thread of the pool busy.
 */
function prepareBatch(items: readonly (LdifRecord | LdifError)[], hash: HashPolicy): Promise<Settled<Prepared>[]> {
  return Promise.all(items.map((item) => (item instanceof LdifError ? { ok: false, error: asProblem(item) } as const : prepare(item, hash))));
}

export async function importLdif(
  store: DirectoryStore, input: AsyncIterable<Buffer | string>, options: ImportOptions,
): Promise<ImportResult> {
  const importer = new Importer(store, options);
  try {
    for await (const items of readLdifBatches(input, { keepErrors: true })) {
      await importer.store(await prepareBatch(items, options.hash));
    }
  } finally {
    await importer.finish();
  }
  return { imported: importer.imported, skipped: importer.skipped };
}
