/**
 * The LevelDB operations a write is made of, as pure functions of what is written: an entry's
 * record and one-level key (placement), its index and group keys, and the checks an add makes of
 * its keys. The store writes them in one atomic batch (store.ts, writes.ts, bulk.ts); a node of a
 * PostgreSQL store applies the same operations to its local copy (postgres/changes.ts).
 */
import { formatDn, type Dn, type Rdn } from './dn.js';
import { encodeEntry } from './codec.js';
import type { Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { membershipChanges, membershipRecords, withoutMemberOf } from './groups.js';
import { indexChanges, indexKeys } from './indexes.js';
import { childKey, entryKey, suffixKey } from './keys.js';
import { normalizeRdn } from './normalize.js';
import { withCreationAttributes } from './operational.js';

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

const EMPTY = Buffer.alloc(0);
export const put = (key: string, value: Buffer = EMPTY): BatchOp => ({ type: 'put', key, value });
export const del = (key: string): BatchOp => ({ type: 'del', key });

/** The entry record at `key` and its one-level index key under `parentKey` (the child's dnKey as value; `rdn` normalized). */
export function placementOps(key: string, parentKey: string, rdn: string, entry: Entry): BatchOp[] {
  return [put(entryKey(key), encodeEntry(entry)), put(childKey(parentKey, rdn), Buffer.from(key))];
}

/** The normalized RDN that ends a dnKey below `parentKey` (keys.ts: normalized RDNs hold no \x01). */
const leafRdnOf = (key: string, parentKey: string): string => (parentKey === '' ? key : key.slice(parentKey.length + 1));

/** The removal of what {@link placementOps} wrote. */
export function removalOps(key: string, parentKey: string, rdn: Rdn): BatchOp[] {
  return [del(entryKey(key)), del(childKey(parentKey, normalizeRdn(rdn)))];
}

/** The entry as a new entry is stored: memberOf dropped, the operational attributes it lacks added. */
export function storedForm(entry: Entry, actor: string): Entry {
  return withCreationAttributes(withoutMemberOf(entry), actor);
}

/**
 * What storing a new entry writes, the naming-context key aside: its record, its one-level
 * index key, its index keys and its group keys. Pure: the same entry gives the same operations.
 */
export function entryOps(stored: Entry, keys: readonly string[], indexed: ReadonlySet<string>): BatchOp[] {
  const [key, parentKey = ''] = keys as [string, string?];
  const ops = placementOps(key, parentKey, leafRdnOf(key, parentKey), stored);
  for (const indexKey of indexKeys(stored, key, indexed)) ops.push(put(indexKey));
  for (const [derived, value] of membershipRecords(stored, key)) ops.push(put(derived, value));
  return ops;
}

/** What storing `after` at `key` in place of `before` writes: its record (`record`), and its index and group keys' changes. Pure. */
export function replacementOps(indexed: ReadonlySet<string>, key: string, before: Entry, after: Entry, record: Buffer): BatchOp[] {
  return [put(entryKey(key), record), ...indexChanges(indexed, key, before, key, after), ...membershipChanges(before, key, after, key)];
}

/** What removing the entry stored at `key` deletes: its record, one-level and naming-context keys, index and group keys. Pure. */
export function deletionOps(entry: Entry, key: string, parentKey: string, rdn: Rdn, indexed: ReadonlySet<string>): BatchOp[] {
  const ops = [...removalOps(key, parentKey, rdn), del(suffixKey(key)), ...membershipChanges(entry, key, undefined, key)];
  for (const indexKey of indexKeys(entry, key, indexed)) ops.push(del(indexKey));
  return ops;
}

export function alreadyExists(dn: string): DirectoryError {
  return new DirectoryError('entryAlreadyExists', `entry ${dn} already exists`);
}

/**
 * Whether an entry whose own key is free starts a naming context: false when its parent exists;
 * true when no ancestor exists and it may; otherwise noSuchObject, matchedDN the closest ancestor.
 */
export function needsNewSuffix(dn: Dn, keys: readonly string[], allowNewSuffix: boolean, exists: (key: string) => boolean): boolean {
  if (dn.length > 1 && exists(keys[1]!)) return false;
  const ancestor = keys.findIndex((key, depth) => depth > 0 && exists(key));
  if (allowNewSuffix && ancestor === -1) return true;
  const reason = dn.length > 1 ? `parent entry ${formatDn(dn.slice(1))} does not exist`
    : `${formatDn(dn)} has no parent and naming contexts cannot be added here`;
  throw new DirectoryError('noSuchObject', reason, ancestor === -1 ? '' : formatDn(dn.slice(ancestor)));
}

