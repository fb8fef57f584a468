/**
 * LevelDB key layout. Every key starts with a one-letter space and \x00:
 *
 *   m\0<name>                          meta: format version, indexed attributes
 *   e\0<dnKey>                         entry record (codec.ts)
 *   c\0<parentKey>\0<rdn>              one-level index: the children of an entry (value: the child's dnKey)
 *   s\0<dnKey>                         naming contexts (entries added without a parent)
 *   i\0<attr>\0<valueKey>\0<dnKey>     equality index
 *   g\0<groupKey>                      groups: every groupOfNames / groupOfUniqueNames entry (groups.ts)
 *   r\0<memberKey>\0<groupKey>         memberships, member first: the groups naming an entry (value: the group's DN as written)
 *   i\0memberof\0<valueKey>\0<memberKey>  memberships, group first: memberOf's equality index (valueKey: the group's normalized DN)
 *
 * A dnKey is the normalized RDNs in reverse order joined by \x01, so an entry's subtree is the
 * key range [dnKey, dnKey + \x02): the entry itself and every key continuing with \x01.
 * Normalized RDNs never hold control characters (dn.ts escapes them).
 *
 * memberOf is never stored in an entry: the g, r and memberof keys are derived from the group
 * entries alone (each member value of a group gives one r key and one memberof key), written and
 * removed in the same batch as the group, like its index keys, so they cannot drift from the
 * groups. A search reads an entry's memberOf from its r range, and `(memberOf=G)` from G's
 * memberof range; a member DN need not name an existing entry.
 */
import { createHash } from 'node:crypto';
import type { Dn, Rdn } from './dn.js';
import { normalizeRdn } from './normalize.js';

const SEPARATOR = '\x00';
const RDN_SEPARATOR = '\x01';
const RANGE_END = '\x02';

export function dnKey(dn: Dn): string {
  return dn.map(normalizeRdn).reverse().join(RDN_SEPARATOR);
}

/** The dnKeys of the entry and each ancestor, the entry's first: what an add must look up. */
export function ancestorKeys(dn: Dn): string[] {
  const reversed = dn.map(normalizeRdn).reverse();
  const keys: string[] = [];
  for (let length = reversed.length; length > 0; length -= 1) keys.push(reversed.slice(0, length).join(RDN_SEPARATOR));
  return keys;
}

/** The dnKey of the entry named `rdn` below the entry at `parentKey` ('' for none): dnKey of the whole DN. */
export function keyBelow(parentKey: string, rdn: Rdn): string {
  return keyBelowNormalized(parentKey, normalizeRdn(rdn));
}

/** The same from the RDN's normalized form (normalizeRdn). */
export function keyBelowNormalized(parentKey: string, normalizedRdn: string): string {
  return parentKey === '' ? normalizedRdn : parentKey + RDN_SEPARATOR + normalizedRdn;
}

/** The dnKey of an entry's parent ('' for a top entry). */
export function parentKeyOf(key: string): string {
  return key.slice(0, Math.max(0, key.lastIndexOf(RDN_SEPARATOR)));
}

export const metaKey = (name: string): string => `m${SEPARATOR}${name}`;
const ENTRY_PREFIX = `e${SEPARATOR}`;
export const entryKey = (key: string): string => ENTRY_PREFIX + key;
export const suffixKey = (key: string): string => `s${SEPARATOR}${key}`;

/** The dnKey of an entry record's key (entryKey), or undefined for a key of another space. */
export function dnKeyOfEntryKey(key: string): string | undefined {
  return key.startsWith(ENTRY_PREFIX) ? key.slice(ENTRY_PREFIX.length) : undefined;
}

/**
 * Every key starting with `prefix` (which ends with the \x00 separator): up to the same prefix
 * ending in \x01. (A `\uffff` upper bound would miss values starting beyond the BMP.)
 */
function prefixRange(prefix: string): { gte: string; lt: string } {
  return { gte: prefix, lt: `${prefix.slice(0, -1)}\x01` };
}

export function childKey(parentKey: string, rdn: string): string {
  return `c${SEPARATOR}${parentKey}${SEPARATOR}${rdn}`;
}

/** The range of c\0 keys naming the children of `parentKey`. */
export function childrenRange(parentKey: string): { gte: string; lt: string } {
  return prefixRange(`c${SEPARATOR}${parentKey}${SEPARATOR}`);
}

/** The range of e\0 keys for the entry `key` and everything below it ('' is the whole tree). */
export function subtreeRange(key: string): { gte: string; lt: string } {
  if (key === '') return { gte: entryKey(''), lt: `e${RANGE_END}` };
  return { gte: entryKey(key), lt: entryKey(key + RANGE_END) };
}

/** Index keys hold short, control-free values as they are, anything else as a digest. */
export function valueKey(normalized: string): string {
  if (normalized.length <= 256 && !/[\x00-\x02]/.test(normalized)) return normalized;
  return `#${createHash('sha256').update(normalized).digest('hex')}`;
}

const EQUALITY_PREFIX = `i${SEPARATOR}`;

export function equalityKey(attribute: string, normalized: string, key: string): string {
  return `${EQUALITY_PREFIX}${attribute}${SEPARATOR}${valueKey(normalized)}${SEPARATOR}${key}`;
}

export function equalityRange(attribute: string, normalized: string): { gte: string; lt: string } {
  return prefixRange(`${EQUALITY_PREFIX}${attribute}${SEPARATOR}${valueKey(normalized)}${SEPARATOR}`);
}

/** The value prefix of an equality index key (equalityRange's gte: the key up to its dnKey), or undefined for a key of another space. */
export function equalityPrefixOfKey(key: string): string | undefined {
  return key.startsWith(EQUALITY_PREFIX) ? key.slice(0, key.lastIndexOf(SEPARATOR) + 1) : undefined;
}

/** Every equality key of every attribute (what a kept index iterator covers: kept-iterators.ts). */
export function indexesRange(): { gte: string; lt: string } {
  return prefixRange(EQUALITY_PREFIX);
}

/** Every equality key of the attribute: the entries that have it, once per value. */
export function presenceRange(attribute: string): { gte: string; lt: string } {
  return prefixRange(`${EQUALITY_PREFIX}${attribute}${SEPARATOR}`);
}

/** The value part of an equality index key (between the attribute and the dnKey). */
export function valueKeyOfIndexKey(indexKey: string, attribute: string): string {
  const start = 2 + attribute.length + 1;
  return indexKey.slice(start, indexKey.lastIndexOf(SEPARATOR));
}

/** The dnKey at the end of an index key (after the last \0). */
export function dnKeyOfIndexKey(indexKey: string): string {
  return indexKey.slice(indexKey.lastIndexOf(SEPARATOR) + 1);
}

/** Is `key` the entry `base` or below it? */
export function inSubtree(key: string, base: string): boolean {
  return base === '' || key === base || key.startsWith(base + RDN_SEPARATOR);
}

/** The normalized DN of a dnKey (`normalizeDn` of the same DN): the RDNs back in order, joined by commas. */
export function normalizedDnOf(key: string): string {
  return key === '' ? '' : key.split(RDN_SEPARATOR).reverse().join(',');
}

/** The g\0 key of a group entry. */
export const groupKey = (key: string): string => `g${SEPARATOR}${key}`;

/** Every e\0 key: the entries. */
export function entriesRange(): { gte: string; lt: string } {
  return prefixRange(`e${SEPARATOR}`);
}

/** Every g\0 key: the groups. */
export function groupsRange(): { gte: string; lt: string } {
  return prefixRange(`g${SEPARATOR}`);
}

/** The r\0 key saying that the group `group` names the entry `member`. */
export function membershipKey(member: string, group: string): string {
  return `r${SEPARATOR}${member}${SEPARATOR}${group}`;
}

/** Every r\0 key: who names whom. */
export function allMembershipsRange(): { gte: string; lt: string } {
  return prefixRange(`r${SEPARATOR}`);
}

/** The r\0 keys of the groups naming the entry `member`. */
export function membershipsRange(member: string): { gte: string; lt: string } {
  return prefixRange(`r${SEPARATOR}${member}${SEPARATOR}`);
}

/**
 * The r\0 keys of the groups naming the entry `key` or any DN below it: the member part is
 * `key` then \0, or `key` then \x01 and more, so one range up to `key` then \x02.
 */
export function subtreeMembershipsRange(key: string): { gte: string; lt: string } {
  return { gte: `r${SEPARATOR}${key}${SEPARATOR}`, lt: `r${SEPARATOR}${key}${RANGE_END}` };
}

/** The group's dnKey in an r\0 key (after its second \0). */
export function groupOfMembershipKey(key: string): string {
  return key.slice(key.indexOf(SEPARATOR, 2) + 1);
}

/** memberOf's equality index: the attribute the memberof keys are filed under. */
export const MEMBER_OF = 'memberof';

/** The memberof key saying that the group `group` names the entry `member`. */
export function memberOfKey(group: string, member: string): string {
  return equalityKey(MEMBER_OF, normalizedDnOf(group), member);
}

/** The memberof keys of the group `group`: one per member, in the members' dnKey order. */
export function membersRange(group: string): { gte: string; lt: string } {
  return equalityRange(MEMBER_OF, normalizedDnOf(group));
}

/** The naming contexts' keys: every s\0 key. */
export function suffixesRange(): { gte: string; lt: string } {
  return { gte: suffixKey(''), lt: `s${RDN_SEPARATOR}` };
}

/** Every key of the database (each starts with an ASCII letter), for a compaction of all of it. */
/** Every entry record's key. */
export const ENTRY_KEYS = { gte: ENTRY_PREFIX, lt: `e${RDN_SEPARATOR}` } as const;

export const ALL_KEYS: { readonly start: string; readonly end: string } = { start: SEPARATOR, end: '\x7f' };

/** A key range no key is in (below every space letter): compacting it only writes the memtable out (recovery.ts). */
export const NO_KEYS: { readonly start: string; readonly end: string } = { start: SEPARATOR, end: SEPARATOR };

/** Is `key` a child of `baseKey` (one RDN below it), given it lies in baseKey's subtree? */
export function isDirectChild(key: string, baseKey: string): boolean {
  return key !== baseKey && !key.slice(baseKey === '' ? 0 : baseKey.length + 1).includes(RDN_SEPARATOR);
}
