/**
 * One entry of a bulk load planned without the database: its DN parsed, its keys, the schema and
 * structure checks, and every operation that stores it. Pure (the schema in force aside), so a
 * worker thread can plan entries while the loader (bulk.ts) checks them against what exists.
 */
import { parseDn } from './dn.js';
import type { Entry } from './entry.js';
import { ancestorKeys } from './keys.js';
import { checkSchema } from './schema/check.js';
import { withStructuralClass } from './schema/enforce.js';
import { currentSchema } from './schema/installed.js';
import { entryOps, storedForm, type BatchOp } from './batch-ops.js';
import { checkEntry } from './validate.js';

/** An entry ready to be placed: its DN as written, its ancestorKeys (its own first) and its operations. */
export interface BulkPlan {
  readonly dn: string;
  readonly keys: readonly string[];
  readonly ops: readonly BatchOp[];
}

export interface PlanContext {
  /** creatorsName/modifiersName for entries that do not carry them. */
  readonly actor: string;
  /** The database's indexed attributes (DirectoryStore.indexed). */
  readonly indexed: ReadonlySet<string>;
  /** Check the entry against the schema in force (import-ldif --no-schema-check: false). */
  readonly schemaCheck: boolean;
}

/** Plans one entry; throws what refuses it, in the order an add checks: the DN, the schema, the structure. */
export function planBulkEntry(entry: Entry, context: PlanContext): BulkPlan {
  const dn = parseDn(entry.dn);
  const keys = ancestorKeys(dn);
  const checked = context.schemaCheck ? withStructuralClass(entry, checkSchema(entry, currentSchema())) : entry;
  checkEntry(checked, dn);
  return { dn: entry.dn, keys, ops: entryOps(storedForm(checked, context.actor), dn, keys, context.indexed) };
}
