/** Index maintenance: the index keys an entry contributes, written and removed with it. */
import type { Entry } from './entry.js';
import { normalizeValue } from './matching.js';
import { attributeType, typeKey } from './schema.js';
import { equalityKey, presenceKey } from './keys.js';

/** Indexed by default: what logins and group lookups filter on. */
export const DEFAULT_INDEXES: readonly string[] = ['objectClass', 'uid', 'cn', 'sn', 'mail', 'member', 'uniqueMember'];

/** Attributes every entry has gain nothing from a presence index. */
const NO_PRESENCE_INDEX = new Set(['objectclass']);

/** Every index key of the entry (equality for each value, presence once per attribute). */
export function indexKeys(entry: Entry, key: string, indexed: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const attribute of entry.attributes) {
    const attr = typeKey(attribute.name);
    if (!indexed.has(attr)) continue;
    const type = attributeType(attr);
    for (const value of attribute.values) keys.add(equalityKey(attr, normalizeValue(type, value), key));
    if (!NO_PRESENCE_INDEX.has(attr)) keys.add(presenceKey(attr, key));
  }
  return [...keys];
}

export function normalizeIndexList(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => typeKey(name)))].sort();
}
