/**
 * One entry of a bulk load planned without the database: its DN parsed, its keys, the schema and
 * structure checks, and every operation that stores it. Pure (the schema in force aside), so a
 * worker thread can plan entries while the loader (bulk.ts) checks them against what exists.
 */
import { DN_CEILING, dnSizeProblem, parseDn, splitPlainFirstRdn, type Dn } from './dn.js';
import { mergedAttributes, type Entry } from './entry.js';
import { attributeKey } from './schema.js';
import { ancestorKeys, keyBelowNormalized } from './keys.js';
import { normalizeLeafRdn } from './normalize.js';
import { SchemaMemo } from './schema/memo.js';
import { checkSchema } from './schema/check.js';
import { withStructuralClass } from './schema/enforce.js';
import { currentSchema } from './schema/installed.js';
import { entryOps, storedForm, type BatchOp } from './batch-ops.js';
import { checkDistinct, checkEntry } from './validate.js';

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

/** A DN parsed, and its ancestorKeys (its own first). */
interface Named {
  readonly dn: Dn;
  readonly keys: readonly string[];
}

const named = (text: string): Named => {
  const dn = parseDn(text);
  return { dn, keys: ancestorKeys(dn) };
};

/** Parents' names, at most 1,024, of parents up to 512 characters: a load's entries share a few parents. */
const parents = new SchemaMemo<Named>(1024, 512);

/**
 * named(text), with the parent's part kept per text when the first RDN is plain (splitPlainFirstRdn):
 * only the first RDN is parsed and normalized. Anything else, or any error, takes the whole parse,
 * which also gives the error's wording.
 */
function namedEntry(text: string): Named {
  const split = splitPlainFirstRdn(text);
  if (split === undefined || dnSizeProblem(text, DN_CEILING) !== undefined) return named(text);
  try {
    const parent = parents.get(split[1], named);
    const [rdn, ...more] = parseDn(split[0]);
    if (rdn === undefined || more.length > 0 || parent.keys.length === 0) return named(text);
    return { dn: [rdn, ...parent.dn], keys: [keyBelowNormalized(parent.keys[0]!, normalizeLeafRdn(rdn)), ...parent.keys] };
  } catch {
    return named(text);
  }
}

/**
 * The entry with each attribute once (an attribute named twice, in any case, is merged) and no
 * value given twice: attributeOrValueExists as an add answers, with --no-schema-check too (as
 * slapadd -s refuses duplicates as well).
 */
function distinctValues(entry: Entry): Entry {
  const names = new Set(entry.attributes.map(({ name }) => attributeKey(name)));
  const grouped = names.size === entry.attributes.length ? entry : { dn: entry.dn, attributes: mergedAttributes(entry.attributes) };
  for (const { name, values } of grouped.attributes) checkDistinct(name, values);
  return grouped;
}

/** Plans one entry; throws what refuses it, in the order an add checks: the DN, the schema, the structure. */
export function planBulkEntry(entry: Entry, context: PlanContext): BulkPlan {
  const { dn, keys } = namedEntry(entry.dn);
  const grouped = distinctValues(entry);
  const checked = context.schemaCheck ? withStructuralClass(grouped, checkSchema(grouped, currentSchema())) : grouped;
  checkEntry(checked, dn);
  return { dn: entry.dn, keys, ops: entryOps(storedForm(checked, context.actor), keys, context.indexed) };
}
