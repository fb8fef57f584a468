/**
 * One LDIF record made ready to store (import.ts, and import's worker threads): an entry,
 * its passwords checked (and hashed when plain), planned for the bulk loader (planBulkEntry);
 * or the problem that refuses it, naming its line.
 */
import { asError, errorMessage } from '../errors.js';
import { groupAttributes, type Entry } from '../store/entry.js';
import { planBulkEntry, type BulkPlan, type PlanContext } from '../store/bulk-plan.js';
import { LdifError } from './errors.js';
import { hashPasswords, type HashPolicy } from './passwords.js';
import type { LdifRecord } from './types.js';

/** Why one record was not imported: its line, its DN if known, and the reason. */
export class ImportProblem extends Error {
  override name = 'ImportProblem';
  constructor(readonly line: number, readonly dn: string | undefined, readonly reason: string) {
    super(`line ${line}${dn === undefined ? '' : ` (${dn})`}: ${reason}`);
  }
}

/** A record planned (with its line), or the problem that refuses it. */
export type Outcome = { readonly ok: true; readonly line: number; readonly plan: BulkPlan } | { readonly ok: false; readonly problem: ImportProblem };

export function toEntry(record: LdifRecord): Entry {
  if (record.kind !== 'entry' && record.kind !== 'add') {
    throw new Error(`changetype ${record.kind} cannot be imported; import-ldif loads entries (use ldapmodify against a server)`);
  }
  return { dn: record.dn, attributes: groupAttributes(record.attributes) };
}

export function failed(line: number, dn: string | undefined, error: unknown): Outcome {
  return { ok: false, problem: new ImportProblem(line, dn, errorMessage(error)) };
}

/** A malformed record's LdifError as a problem (its message without the `line N: ` it starts with). */
export function ldifProblem(error: LdifError): Outcome {
  return { ok: false, problem: new ImportProblem(error.line, undefined, error.message.replace(/^line \d+: /, '')) };
}

/** The entry planned, or the problem. */
export function planned(line: number, entry: Entry, context: PlanContext): Outcome {
  try {
    return { ok: true, line, plan: planBulkEntry(entry, context) };
  } catch (error) {
    return failed(line, entry.dn, asError(error));
  }
}

/** The entry with its plain passwords hashed, then planned; a promise only when there is hashing to do. */
export function hashedAndPlanned(line: number, entry: Entry, hash: HashPolicy, context: PlanContext): Outcome | Promise<Outcome> {
  try {
    const hashed = hashPasswords(entry, hash);
    if (!(hashed instanceof Promise)) return planned(line, hashed, context);
    return hashed.then((ready) => planned(line, ready, context), (error: unknown) => failed(line, entry.dn, error));
  } catch (error) {
    return failed(line, entry.dn, error);
  }
}

/** One record or malformed-record error, on the main thread: every step here. */
export function prepareRecord(item: LdifRecord | LdifError, hash: HashPolicy, context: PlanContext): Outcome | Promise<Outcome> {
  if (item instanceof LdifError) return ldifProblem(item);
  try {
    return hashedAndPlanned(item.line, toEntry(item), hash, context);
  } catch (error) {
    return failed(item.line, item.dn, error);
  }
}
