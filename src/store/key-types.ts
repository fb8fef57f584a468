/**
 * Which schema a database's keys were built with. A dnKey and an index key hold each attribute
 * type by its canonical name and each value normalized by the type's equality rule (keys.ts,
 * normalize.ts), as the schema in force said when the key was written. Served under a schema that
 * says otherwise for a type (a `--schema` file left out, a type redefined), an entry named or
 * indexed by it is still listed by a subtree search but no longer found by its DN or its index.
 *
 * So the database keeps, for every name and OID of every attribute type (lower-cased), the
 * canonical key and equality rule it was loaded with (meta `keyTypes`, a JSON object):
 *
 *     { "cn": "cn caseIgnore", "commonname": "cn caseIgnore", "2.5.4.3": "cn caseIgnore", ... }
 *
 * and, opened again, says which of them the schema in force maps otherwise or no longer knows
 * (keyTypesChanged: serve and import-ldif warn). Names a later schema adds are kept too (they
 * change no key written before). A database from before this record adopts the schema in force.
 */
import { put, type BatchOp } from './batch-ops.js';
import { metaKey } from './keys.js';
import type { SchemaRegistry } from './schema/registry.js';

const KEY_TYPES_NAME = 'keyTypes';
const KEY_TYPES = metaKey(KEY_TYPES_NAME);

/** How many of the changed types' names serve and import-ldif list. */
export const LISTED_KEY_TYPES = 20;

/** What serve and import-ldif say when keyTypesChanged finds types (the names follow). */
export const KEY_TYPES_CHANGED = 'the schema in force maps attribute types otherwise than when this database was loaded: entries named or indexed by them may not be found by their DN or index';
/** And what to do about it. */
export const KEY_TYPES_ADVICE = 'serve it with the --schema files it was loaded with, or export-ldif with them and import-ldif into an empty --data directory';

/** By lower-cased name or OID: "canonical-key equality-rule". */
export type KeyTypes = Readonly<Record<string, string>>;

/** The key types of a registry: every name and OID of every attribute type. */
export function keyTypesOf(registry: SchemaRegistry): KeyTypes {
  const types: Record<string, string> = {};
  for (const type of registry.attributeTypes) {
    const mapped = `${type.key} ${type.compare}`;
    for (const name of [...type.names, type.oid]) types[name.toLowerCase()] = mapped;
  }
  return types;
}

/** The names `stored` maps that `current` maps otherwise or not at all, sorted. */
export function keyTypeChanges(stored: KeyTypes, current: KeyTypes): string[] {
  return Object.keys(stored).filter((name) => current[name] !== stored[name]).sort();
}

/** What to keep after an open without changes: the stored names and the ones the schema in force adds. */
export function mergedKeyTypes(stored: KeyTypes, current: KeyTypes): KeyTypes {
  return { ...stored, ...current };
}

/** What keyTypesChanged reads and writes (a DirectoryStore). */
export interface KeyTypesHolder {
  getMeta(name: string): Promise<string | undefined>;
  writeLocal(ops: readonly BatchOp[], sync: boolean): Promise<void>;
}

function parsed(text: string | undefined): KeyTypes | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value as KeyTypes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The names the schema in force (`registry`) maps otherwise than the one the database's keys were
 * built with (sorted; none when they agree). When they agree, the names it adds are recorded;
 * with nothing recorded (a new database, or one from before the record), the schema in force is.
 */
export async function keyTypesChanged(db: KeyTypesHolder, registry: SchemaRegistry): Promise<string[]> {
  const current = keyTypesOf(registry);
  const stored = parsed(await db.getMeta(KEY_TYPES_NAME));
  const changes = stored ? keyTypeChanges(stored, current) : [];
  if (changes.length === 0 && (!stored || Object.keys(current).some((name) => !(name in stored)))) {
    await db.writeLocal([put(KEY_TYPES, Buffer.from(JSON.stringify(mergedKeyTypes(stored ?? {}, current))))], true);
  }
  return changes;
}
