/** Index maintenance: the index keys an entry contributes, written and removed with it. */
import type { Entry } from './entry.js';
import { normalizeValue } from './normalize.js';
import { attributeType, typeKey } from './schema.js';
import { equalityKey } from './keys.js';

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

/** The attributes to index, by type key; memberOf's keys come from the groups (groups.ts), never from an entry's values. */
export function normalizeIndexList(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => typeKey(name)))].filter((name) => name !== 'memberof').sort();
}
