/**
 * The online write path: add (as a client asks for it), modify, delete and rename (modify DN).
 * Each write takes the locks of the entries it reads and changes (a per-entry mutex, mutex.ts),
 * checks against what is stored, and writes the entry record, one-level index, naming context,
 * index keys, a group's membership keys (groups.ts) and operational attributes in one atomic
 * LevelDB batch, synced to disk before it resolves: an acknowledged write survives a crash.
 *
 * Referential integrity (as OpenLDAP's refint overlay, for group members): deleting an entry
 * removes it from every group naming it, renaming it (with its subtree, subtree.ts) rewrites
 * the values naming any of the moved DNs, in the same batch.
 * At most `maxRefintGroups` groups per operation; past that it is refused (adminLimitExceeded).
 *
 * Locks: add takes the entry and its parent (a delete of the parent takes the parent); modify
 * and delete take the entry; rename takes every entry of the subtree under its old and new name
 * and the new parent. So a child cannot be added under a parent being deleted or renamed, and
 * no update is lost. Delete and rename also take the groups naming the entry (or, for rename,
 * any DN of the subtree; read first, each group read again under the locks): a group that
 * starts naming the entry meanwhile is left naming the old DN, as if its write came after,
 * which is allowed (a member DN need not exist).
 */
import { formatDn, parseDn, type Dn, type Rdn } from './dn.js';
import { mergedAttributes, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { checkRefintGroups, withoutMember } from './groups.js';
import { ancestorKeys, inSubtree } from './keys.js';
import { DEFAULT_MAX_SUBTREE_RENAME, LOCK_ATTEMPTS, SubtreeMove, descendantOps, lockSubtree, movedEntryOps, suffixOps } from './subtree.js';
import { encodeEntry } from './codec.js';
import { applyModifications, renamed, withRdnValues, type Modification } from './modification.js';
import { withModificationAttributes } from './operational.js';
import { deletionOps, replacementOps, type BatchOp } from './batch-ops.js';
import type { DirectoryStore } from './store.js';
import type { HeldLocks } from './mutex.js';
import { checkModifiedEntry, checkValues, checkWritableAttribute } from './validate.js';
import { withStructuralClass, checkClientEntry } from './schema/enforce.js';

export interface WriteOptions {
  /** Who writes: modifiersName (and creatorsName on add). */
  readonly actor: string;
  /** Acknowledge only once the write is on disk (fsync). Default true. */
  readonly sync?: boolean;
  /**
   * Runs under the entry's lock before the write, on the entry as stored (modify, delete, rename)
   * or, on add, as it will be stored: a throw refuses the write (an old password check, an
   * assertion control).
   */
  readonly check?: (entry: Entry) => void | Promise<void>;
}

export interface AddEntryOptions extends WriteOptions {
  /** May this entry start a naming context (when no ancestor of it exists)? */
  readonly allowNewSuffix?: boolean;
}

export interface ModifyOptions extends WriteOptions {
  /** Runs on the entry the changes give, under the lock, before it is written (e.g. a cap on its values). */
  readonly checkResult?: (entry: Entry) => void;
  /** Modifications the server makes with the client's (a password change's pwdChangedTime): applied after them, not checked as a client's. */
  readonly records?: readonly Modification[];
}

/** Groups one delete or rename may update for referential integrity: serve's --max-refint-groups default. */
export const DEFAULT_MAX_REFINT_GROUPS = 1000;

export interface DeleteOptions extends Pick<WriteOptions, 'check'> {
  /** modifiersName of the groups referential integrity changes (else theirs are kept). */
  readonly actor?: string;
  /** Acknowledge only once the write is on disk (fsync). Default true. */
  readonly sync?: boolean;
  /** Groups naming the entry that may be updated (0: no limit; DEFAULT_MAX_REFINT_GROUPS unless given). */
  readonly maxRefintGroups?: number;
}

export interface RenameOptions extends WriteOptions {
  readonly maxRefintGroups?: number;
  /** Entries the renamed entry's subtree may hold, itself included (0: no limit; DEFAULT_MAX_SUBTREE_RENAME unless given). */
  readonly maxSubtreeEntries?: number;
}

export interface Rename {
  readonly newRdn: Rdn;
  readonly deleteOldRdn: boolean;
  /** The new parent; the entry stays under its parent when absent. */
  readonly newSuperior?: Dn;
}


/** The dnKeys of an entry and of its parent ('' above a top entry). The root DSE is not an entry. */
function keysOf(dn: Dn): [string, string] {
  if (dn.length === 0) throw new DirectoryError('unwillingToPerform', 'the root DSE cannot be changed');
  const [key, parentKey = ''] = ancestorKeys(dn);
  return [key!, parentKey];
}

/**
 * Adds an entry sent by a client: attributes named twice are merged, values checked, attributes
 * the server keeps refused, and the RDN's values added when missing (RFC 4511 4.7, as OpenLDAP).
 * Returns the entry as stored (with its operational attributes).
 */
export async function addEntry(store: DirectoryStore, entry: Entry, options: AddEntryOptions): Promise<Entry> {
  const dn = parseDn(entry.dn);
  const attributes = mergedAttributes(entry.attributes);
  for (const { name, values } of attributes) {
    checkWritableAttribute(name);
    checkValues(name, values);
  }
  const complete = withRdnValues({ dn: entry.dn, attributes }, dn[0] ?? []);
  return store.add(withStructuralClass(complete, checkClientEntry(complete)), options);
}

/** Applies the modifications to the entry, all or none; returns the entry as stored. */
export async function modifyEntry(store: DirectoryStore, dn: Dn, modifications: readonly Modification[], options: ModifyOptions): Promise<Entry> {
  for (const modification of modifications) checkWritableAttribute(modification.attribute);
  const [key] = keysOf(dn);
  return store.retrying(() => store.locks.run([key], async (held) => {
    const before = await store.require(dn, `entry ${formatDn(dn)} does not exist`);
    await options.check?.(before);
    const changed = modified(before, [...modifications, ...(options.records ?? [])]);
    const after = withModificationAttributes(withStructuralClass(changed, checkClientEntry(changed, before)), options.actor);
    options.checkResult?.(after);
    await rewrite(store, key, before, after, options.sync ?? true, held);
    return after;
  }));
}

/**
 * A change the server makes on its own (a lockout record, a password re-encoded after a bind):
 * under the entry's lock, `change` sees the stored entry and returns the modifications to make,
 * or undefined to leave it. modifiersName and modifyTimestamp stay: no client changed the entry.
 * Resolves whether it wrote (false also when the entry is gone).
 */
export async function updateEntry(
  store: DirectoryStore, dn: Dn, change: (entry: Entry) => readonly Modification[] | undefined, options: { readonly sync?: boolean } = {},
): Promise<boolean> {
  const [key] = keysOf(dn);
  return store.retrying(() => store.locks.run([key], async (held) => {
    const before = await store.getByKey(key);
    const modifications = before && change(before);
    if (!before || !modifications) return false;
    await rewrite(store, key, before, modified(before, modifications), options.sync ?? true, held);
    return true;
  }));
}

/** The entry after the modifications, checked (objectClass and RDN values kept). */
function modified(before: Entry, modifications: readonly Modification[]): Entry {
  const changed = applyModifications(before, modifications);
  checkModifiedEntry(changed, parseDn(before.dn));
  return changed;
}

/** The record, index keys and membership keys of an entry stored at `key` in place of its old version. */
function rewriteOps(store: DirectoryStore, key: string, before: Entry, after: Entry): BatchOp[] {
  return replacementOps(store.indexed, key, before, after, encodeEntry(after));
}

/** Stores an entry in place of its old version, index and membership keys updated, in one batch. */
async function rewrite(store: DirectoryStore, key: string, before: Entry, after: Entry, sync: boolean, held: HeldLocks): Promise<void> {
  await store.write(rewriteOps(store, key, before, after), sync, held);
}

/**
 * The groups naming the entry `key` (their dnKeys), read before the locks are taken; refused
 * with adminLimitExceeded when more than `limit` (0: no limit) would have to be updated.
 */
async function namingGroups(store: DirectoryStore, dn: Dn, key: string, limit: number): Promise<string[]> {
  const groups = (await store.memberships.direct(key, true)).map((group) => group.key);
  checkRefintGroups(`${formatDn(dn)} is a member of`, groups.length, limit);
  return groups;
}

/**
 * Runs `critical` holding the locks of `key` and of the groups naming it as they are once locked:
 * a group that moved to a new DN since they were first read (a modify DN running meanwhile) is
 * locked too when free at once, else every lock is taken again (LOCK_ATTEMPTS times, then busy).
 */
async function withNamingGroups<T>(
  store: DirectoryStore, dn: Dn, key: string, limit: number, critical: (groups: readonly string[], held: HeldLocks) => Promise<T>,
): Promise<T> {
  let groups = await namingGroups(store, dn, key, limit);
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await store.locks.run([key, ...groups], async (held): Promise<{ again: string[] } | { result: T }> => {
      const now = await namingGroups(store, dn, key, limit);
      const moved = now.filter((group) => !held.keys.has(group));
      if (moved.length > 0 && !held.tryAdd(moved)) return { again: now };
      return { result: await critical(now, held) };
    });
    if ('result' in outcome) return outcome.result;
    if (attempt === LOCK_ATTEMPTS) throw new DirectoryError('busy', `the groups naming ${formatDn(dn)} kept changing while it was being written; try again`);
    groups = outcome.again;
  }
}

/**
 * Under the groups' locks: each group read again and changed by `change` (the same entry: left
 * alone), its record, index keys and membership keys rewritten, modifiersName the actor's.
 */
async function groupUpdates(store: DirectoryStore, groups: readonly string[], change: (group: Entry) => Entry, actor: string | undefined): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  const stored = await store.getManyByKey(groups);
  groups.forEach((key, i) => {
    const before = stored[i];
    const changed = before && change(before);
    if (!before || !changed || changed === before) return;
    ops.push(...rewriteOps(store, key, before, actor === undefined ? changed : withModificationAttributes(changed, actor)));
  });
  return ops;
}

/** Deletes a leaf entry (a parent: notAllowedOnNonLeaf), and removes it from the groups naming it. */
export async function deleteEntry(store: DirectoryStore, dn: Dn, options: DeleteOptions = {}): Promise<void> {
  await store.retrying(() => deleteOnce(store, dn, options));
}

async function deleteOnce(store: DirectoryStore, dn: Dn, options: DeleteOptions): Promise<void> {
  const [key, parentKey] = keysOf(dn);
  await withNamingGroups(store, dn, key, options.maxRefintGroups ?? DEFAULT_MAX_REFINT_GROUPS, async (groups, held) => {
    const entry = await store.require(dn, `entry ${formatDn(dn)} does not exist`);
    await options.check?.(entry);
    if (await store.hasChildren(dn)) throw new DirectoryError('notAllowedOnNonLeaf', 'subordinate objects must be deleted first');
    const ops = deletionOps(entry, key, parentKey, dn[0]!, store.indexed);
    ops.push(...await groupUpdates(store, groups, (group) => withoutMember(group, key), options.actor));
    await store.write(ops, options.sync ?? true, held);
  });
}

/**
 * Renames an entry, and moves it under `newSuperior` when given, with everything below it
 * (subtree.ts), rewriting the values of the groups naming any of their DNs; returns the entry
 * as stored.
 */
export async function renameEntry(store: DirectoryStore, dn: Dn, rename: Rename, options: RenameOptions): Promise<Entry> {
  return store.retrying(() => renameOnce(store, dn, rename, options));
}

async function renameOnce(store: DirectoryStore, dn: Dn, rename: Rename, options: RenameOptions): Promise<Entry> {
  for (const ava of rename.newRdn) checkWritableAttribute(ava.type);
  const parent = rename.newSuperior ?? dn.slice(1);
  const newDn = [rename.newRdn, ...parent];
  const [oldKey, oldParentKey] = keysOf(dn);
  const [newKey, newParentKey] = keysOf(newDn);
  const move = new SubtreeMove(dn, newDn);
  const limits = {
    maxEntries: options.maxSubtreeEntries ?? DEFAULT_MAX_SUBTREE_RENAME, maxGroups: options.maxRefintGroups ?? DEFAULT_MAX_REFINT_GROUPS,
  };
  return lockSubtree(store, move, newParentKey, limits, async ({ keys, groups, held }) => {
    const before = await store.require(dn, `entry ${formatDn(dn)} does not exist`);
    await options.check?.(before);
    await checkRename(store, { dn, oldKey, oldParentKey, parent, newParentKey, newDn, newKey });
    const moved = renamed(before, parseDn(before.dn), newDn, rename.deleteOldRdn);
    // A group naming itself, or entries below it, names their new DNs.
    const after = withModificationAttributes(move.renameMembers(moved), options.actor);
    checkModifiedEntry(after, newDn);
    checkClientEntry(after, before);
    const ops = [
      ...movedEntryOps(store.indexed, { key: oldKey, parentKey: oldParentKey, rdn: dn[0]!, entry: before }, {
        key: newKey, parentKey: newParentKey, rdn: rename.newRdn, entry: after,
      }),
      ...await descendantOps(store, move, keys, options.actor),
      ...await suffixOps(store, move),
      ...await groupUpdates(store, groups, (group) => move.renameMembers(group), options.actor),
    ];
    await store.write(ops, options.sync ?? true, held);
    return after;
  });
}

interface RenamePlan {
  readonly dn: Dn;
  readonly oldKey: string;
  readonly oldParentKey: string;
  readonly parent: Dn;
  readonly newParentKey: string;
  readonly newDn: Dn;
  readonly newKey: string;
}

/** What a rename needs: an entry that is not a naming context, an existing new parent not below it, a free new name. */
async function checkRename(store: DirectoryStore, plan: RenamePlan): Promise<void> {
  const known = await store.existing([plan.oldParentKey, plan.newParentKey, plan.newKey]);
  if (plan.dn.length < 2 || !known.has(plan.oldParentKey)) {
    throw new DirectoryError('unwillingToPerform', 'a naming context cannot be renamed');
  }
  if (plan.parent.length === 0) throw new DirectoryError('unwillingToPerform', 'an entry cannot be moved to the root');
  if (inSubtree(plan.newParentKey, plan.oldKey)) throw new DirectoryError('unwillingToPerform', 'cannot place an entry below itself');
  if (!known.has(plan.newParentKey)) await store.require(plan.parent, `new superior ${formatDn(plan.parent)} does not exist`);
  if (plan.newKey !== plan.oldKey && known.has(plan.newKey)) {
    throw new DirectoryError('entryAlreadyExists', `entry ${formatDn(plan.newDn)} already exists`);
  }
}
