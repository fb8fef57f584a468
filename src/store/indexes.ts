/** Index maintenance: the index keys an entry contributes, written and removed with it. */
import type { Attribute, Entry } from './entry.js';
import { normalizeValue } from './normalize.js';
import { attributeType, typeKey } from './schema.js';
import { equalityKey } from './keys.js';
import type { BatchOp } from './batch-ops.js';

const EMPTY = Buffer.alloc(0);

/** Indexed by default: what logins and group lookups filter on. */
export const DEFAULT_INDEXES: readonly string[] = ['objectClass', 'uid', 'cn', 'sn', 'mail', 'member', 'uniqueMember'];

/**
 * Every index key of the entry: one per value of each indexed attribute. Presence needs no keys
 * of its own: the attribute's whole equality range lists every entry that has it.
 */
export function indexKeys(entry: Entry, key: string, indexed: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const attribute of entry.attributes) {
    const attr = typeKey(attribute.name);
    if (!indexed.has(attr)) continue;
    const type = attributeType(attr);
    for (const value of attribute.values) keys.add(equalityKey(attr, normalizeValue(type, value), key));
  }
  return [...keys];
}

/** Same description, same values in the same order: the same index keys. */
function sameAttribute(attribute: Attribute, other: Attribute | undefined): boolean {
  if (other === attribute) return true;
  if (other === undefined || other.name !== attribute.name || other.values.length !== attribute.values.length) return false;
  return attribute.values.every((value, i) => value.equals(other.values[i]!));
}

/**
 * The indexed types whose attributes differ between the two versions of an entry. A change
 * carries the attributes it leaves alone over as the same objects (working-entry.ts); a node
 * applying PostgreSQL's rows decodes both versions apart, so an attribute also counts as kept
 * when the other version has one of the same description with the same values. A type each of
 * whose attributes is kept, both ways, has the same index keys in both versions.
 */
function changedIndexedTypes(indexed: ReadonlySet<string>, before: Entry, after: Entry): Set<string> {
  const changed = new Set<string>();
  const addDiffering = (from: Entry, other: Entry): void => {
    const byName = new Map(other.attributes.map((attribute) => [attribute.name, attribute]));
    for (const attribute of from.attributes) {
      const type = typeKey(attribute.name);
      if (indexed.has(type) && !changed.has(type) && !sameAttribute(attribute, byName.get(attribute.name))) changed.add(type);
    }
  };
  addDiffering(before, after);
  addDiffering(after, before);
  return changed;
}

/**
 * The index keys to remove (the old entry's, at `oldKey`, that the new one lacks) and to add (the
 * new one's, at `newKey`). In place (one key), only the types whose attributes changed are read.
 */
export function indexChanges(indexed: ReadonlySet<string>, oldKey: string, before: Entry, newKey: string, after: Entry): BatchOp[] {
  const types = oldKey === newKey ? changedIndexedTypes(indexed, before, after) : indexed;
  if (types.size === 0) return [];
  const old = new Set(indexKeys(before, oldKey, types));
  const fresh = new Set(indexKeys(after, newKey, types));
  const ops: BatchOp[] = [];
  for (const key of old) if (!fresh.has(key)) ops.push({ type: 'del', key });
  for (const key of fresh) if (!old.has(key)) ops.push({ type: 'put', key, value: EMPTY });
  return ops;
}

/** The attributes to index, by type key; memberOf's keys come from the groups (groups.ts), never from an entry's values. */
export function normalizeIndexList(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => typeKey(name)))].filter((name) => name !== 'memberof').sort();
}
