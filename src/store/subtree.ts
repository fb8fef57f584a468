/**
 * Modify DN of a whole subtree (renameEntry in writes.ts; a leaf is a subtree of one entry).
 * Every entry below the renamed one gets its new DN, and with it every key derived from a DN:
 * its record, its one-level key, its naming-context key, its index keys and, for a group, its
 * membership keys; the groups naming any DN of the subtree, inside it or outside, name the new
 * DNs (referential integrity), so the memberOf keys of the moved entries follow. The caller
 * writes it all in one synced batch: after a crash every entry has its old name or every entry
 * its new one.
 *
 * Locks (mutex.ts): every entry of the subtree under its old and its new name, the new parent
 * and the groups outside the subtree naming DNs in it, taken together in sorted order, so two
 * writes never wait for each other. The subtree's keys are read before the locks and again
 * under them; the locks of entries added in between (their parents were not locked yet) are
 * taken too if they are free at once (tryAdd, which never waits, so no deadlock), and the keys
 * read again, until none is new. When such a lock is not free (a write to the new entry is
 * running), every lock is let go and all are taken again with it, up to LOCK_ATTEMPTS times
 * (then busy). The groups naming the subtree are read again under the locks the same way: one
 * that moved to a new DN meanwhile names the subtree from there. Holding them, no entry can be
 * added below, renamed or deleted inside the subtree (an add takes its parent's lock, a rename
 * and a delete the entry's), and nothing is left behind.
 *
 * Limits: more than `maxEntries` entries (the renamed one included) is unwillingToPerform,
 * more than `maxGroups` groups to rewrite is adminLimitExceeded (groups.ts), both before any
 * lock is taken and again under them.
 */
import { formatDn, parseDn, type Dn, type Rdn } from './dn.js';
import { normalizeRdn } from './normalize.js';
import type { Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { checkRefintGroups, membershipChanges, withMembersRenamed } from './groups.js';
import { indexChanges } from './indexes.js';
import { dnKey, inSubtree, parentKeyOf, suffixKey } from './keys.js';
import type { HeldLocks } from './mutex.js';
import { withModificationAttributes } from './operational.js';
import { del, placementOps, put, removalOps, type BatchOp } from './batch-ops.js';
import type { DirectoryStore } from './store.js';

/** Entries one modify DN may move, the renamed one included: serve's --max-subtree-rename default. */
export const DEFAULT_MAX_SUBTREE_RENAME = 10_000;

/** How many times every lock is taken again when an entry added to the subtree (or a group naming it) meanwhile has its lock held. */
export const LOCK_ATTEMPTS = 5;

export interface SubtreeLimits {
  /** Entries the subtree may hold (0: no limit). */
  readonly maxEntries: number;
  /** Groups outside it that may be rewritten (0: no limit). */
  readonly maxGroups: number;
}

/** An entry where it is stored: its dnKey, its parent's, its RDN. */
export interface Placed {
  readonly key: string;
  readonly parentKey: string;
  readonly rdn: Rdn;
  readonly entry: Entry;
}

/** What the subtree and the groups locked for a move hold, as read under the locks. */
export interface Locked {
  /** The dnKeys of the subtree's entries, the renamed entry first (when it exists). */
  readonly keys: readonly string[];
  /** The dnKeys of the groups outside the subtree naming DNs in it. */
  readonly groups: readonly string[];
  /** The locks held (for the write: DirectoryStore.write). */
  readonly held: HeldLocks;
}

/** One subtree's move from `dn` to `newDn`: the new DN and key of each DN in it. */
export class SubtreeMove {
  readonly oldKey: string;
  readonly newKey: string;

  constructor(readonly dn: Dn, readonly newDn: Dn) {
    this.oldKey = dnKey(dn);
    this.newKey = dnKey(newDn);
  }

  /** Is the DN of dnKey `key` in the subtree? */
  contains(key: string): boolean {
    return inSubtree(key, this.oldKey);
  }

  /** The new dnKey of the subtree's `key`. */
  keyOf(key: string): string {
    return this.newKey + key.slice(this.oldKey.length);
  }

  /** The new DN of a DN in the subtree: its RDNs below the renamed entry as written, then the new DN. */
  dnOf(dn: Dn): Dn {
    return [...dn.slice(0, dn.length - this.dn.length), ...this.newDn];
  }

  /** The group with each value naming a DN of the subtree naming its new DN (the same entry when none does). */
  renameMembers(group: Entry): Entry {
    return withMembersRenamed(group, (dn, key) => (this.contains(key) ? this.dnOf(dn) : undefined));
  }
}

/** The dnKeys of the subtree, refused past `limit` entries (0: no limit). */
async function subtreeKeys(store: DirectoryStore, move: SubtreeMove, limit: number): Promise<string[]> {
  const keys = await store.subtreeKeys(move.oldKey, limit > 0 ? limit + 1 : 0);
  if (limit > 0 && keys.length > limit) {
    throw new DirectoryError('unwillingToPerform',
      `the subtree of ${formatDn(move.dn)} holds more than ${limit} entries; a modify DN moves at most ${limit} (--max-subtree-rename)`);
  }
  return keys;
}

/** The groups outside the subtree naming DNs in it, refused past `limit` (0: no limit). */
async function namingGroups(store: DirectoryStore, move: SubtreeMove, entries: number, limit: number): Promise<string[]> {
  const groups = [...await store.memberships.namingSubtree(move.oldKey)];
  const members = entries > 1 ? `${formatDn(move.dn)} and the entries below it are members of` : `${formatDn(move.dn)} is a member of`;
  checkRefintGroups(members, groups.length, limit);
  return groups;
}

/**
 * Runs `critical` holding the locks of the subtree (old and new names), the new parent and
 * the groups naming DNs in it, given what they hold as read under the locks.
 */
export async function lockSubtree<T>(
  store: DirectoryStore, move: SubtreeMove, newParentKey: string, limits: SubtreeLimits, critical: (locked: Locked) => Promise<T>,
): Promise<T> {
  let keys = await subtreeKeys(store, move, limits.maxEntries);
  for (let attempt = 1; ; attempt += 1) {
    const groups = await namingGroups(store, move, keys.length, limits.maxGroups);
    const taken = new Set([move.oldKey, ...keys]);
    const lockKeys = [...taken, ...[...taken].map((key) => move.keyOf(key)), newParentKey, ...groups];
    const outcome = await store.locks.run(lockKeys, async (held) => {
      const locked = await lockAdded(store, move, limits, taken, held);
      return 'added' in locked ? locked : { result: await critical({ ...locked, held }) };
    });
    if ('result' in outcome) return outcome.result;
    if (attempt === LOCK_ATTEMPTS) {
      throw new DirectoryError('busy', `entries kept being added and written to below ${formatDn(move.dn)} while it was being renamed; try again`);
    }
    keys = outcome.added;
  }
}

/**
 * Holding the locks of `taken` (and of the groups read before): the subtree's keys and the
 * groups naming them read again, and the locks of those added meanwhile (an entry added below,
 * a group moved to a new DN) taken while each is free at once, until none is new; or, when one
 * is not free, the keys to take every lock again with.
 */
async function lockAdded(
  store: DirectoryStore, move: SubtreeMove, limits: SubtreeLimits, taken: Set<string>, held: HeldLocks,
): Promise<{ keys: string[]; groups: string[] } | { added: string[] }> {
  for (;;) {
    const now = await subtreeKeys(store, move, limits.maxEntries);
    const added = now.filter((key) => !taken.has(key));
    if (added.length === 0) {
      const groups = await namingGroups(store, move, now.length, limits.maxGroups);
      const moved = groups.filter((group) => !held.keys.has(group));
      if (moved.length === 0) return { keys: now, groups };
      if (!held.tryAdd(moved)) return { added: now };
      continue; // read both again: the groups' locks taken, nothing else may have moved
    }
    if (!held.tryAdd([...added, ...added.map((key) => move.keyOf(key))])) return { added: now };
    for (const key of added) taken.add(key);
  }
}

/** What moving an entry does: its old record, one-level key, index and membership keys replaced by the new ones. */
export function movedEntryOps(indexed: ReadonlySet<string>, from: Placed, to: Placed): BatchOp[] {
  return [
    ...removalOps(from.key, from.parentKey, from.rdn),
    ...indexChanges(indexed, from.key, from.entry, to.key, to.entry),
    ...membershipChanges(from.entry, from.key, to.entry, to.key),
    ...placementOps(to.key, to.parentKey, normalizeRdn(to.rdn), to.entry),
  ];
}

/**
 * The moves of the entries below the renamed one (`keys`, read under the locks): each gets its
 * new DN, its RDN and other values as they were; a group among them names the new DNs of the
 * subtree's entries, with modifiersName the actor's when that changed a value.
 */
export async function descendantOps(store: DirectoryStore, move: SubtreeMove, keys: readonly string[], actor: string): Promise<BatchOp[]> {
  const below = keys.filter((key) => key !== move.oldKey);
  const entries = await store.getManyByKey(below);
  const ops: BatchOp[] = [];
  below.forEach((key, i) => {
    const entry = entries[i];
    if (!entry) return;
    const dn = parseDn(entry.dn);
    const moved = { dn: formatDn(move.dnOf(dn)), attributes: entry.attributes };
    const renamed = move.renameMembers(moved);
    const after = renamed === moved ? moved : withModificationAttributes(renamed, actor);
    const parentKey = parentKeyOf(key);
    ops.push(...movedEntryOps(store.indexed, { key, parentKey, rdn: dn[0]!, entry }, {
      key: move.keyOf(key), parentKey: move.keyOf(parentKey), rdn: dn[0]!, entry: after,
    }));
  });
  return ops;
}

/** The naming-context keys of entries in the subtree (there are none unless one was added before its parent), moved. */
export async function suffixOps(store: DirectoryStore, move: SubtreeMove): Promise<BatchOp[]> {
  const inside = (await store.suffixes()).map((dn) => dnKey(parseDn(dn))).filter((key) => move.contains(key));
  return inside.flatMap((key) => [del(suffixKey(key)), put(suffixKey(move.keyOf(key)))]);
}
