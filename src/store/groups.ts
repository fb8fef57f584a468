/**
 * Static groups: which entries are groups, whom they name, and the keys that follow from it
 * (keys.ts: g, r and memberof). A group is an entry of one of the GROUP_KINDS classes; each
 * value of its kind's attribute that is a DN names a member (uniqueMember's optional
 * `#'0101'B` UID, RFC 4517 NameAndOptionalUID, is not part of the name). A value naming the
 * group itself is not a membership (as OpenLDAP's memberof overlay ignores it). Pure functions:
 * the writes (writes.ts) put their results in the group's batch.
 *
 * Also what referential integrity does to a group when an entry it names is deleted or renamed:
 * the values naming it are removed, or rewritten to the new DN.
 */
import { formatDn, parseDn, type Dn } from './dn.js';
import { values, type Attribute, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { dnKey, groupKey, memberOfKey, membershipKey } from './keys.js';
import { typeKey } from './schema.js';
import type { BatchOp } from './batch-ops.js';

/** The group object classes and the attribute holding each one's members (lower-case type keys). */
export const GROUP_KINDS: readonly { readonly objectClass: string; readonly attribute: string }[] = [
  { objectClass: 'groupofnames', attribute: 'member' },
  { objectClass: 'groupofuniquenames', attribute: 'uniquemember' },
];

const EMPTY = Buffer.alloc(0);

/** RFC 4517 3.3.21: an optional UID after the DN, `#'` bits `'B`. */
const OPTIONAL_UID = /#'[01]*'B$/;

/** The member attributes of the kinds of group the entry is (none for an entry that is not a group). */
export function memberAttributes(entry: Entry): string[] {
  const classes = new Set(values(entry, 'objectClass').map((value) => value.toString('utf8').trim().toLowerCase()));
  return GROUP_KINDS.filter((kind) => classes.has(kind.objectClass)).map((kind) => kind.attribute);
}

export function isGroup(entry: Entry): boolean {
  return memberAttributes(entry).length > 0;
}

/**
 * The entry without memberOf: it is computed from the groups, never stored (an LDIF exported
 * by a server that stores it, such as OpenLDAP with its memberof overlay, may carry it).
 */
export function withoutMemberOf(entry: Entry): Entry {
  if (!entry.attributes.some((attribute) => typeKey(attribute.name) === 'memberof')) return entry;
  return { dn: entry.dn, attributes: entry.attributes.filter((attribute) => typeKey(attribute.name) !== 'memberof') };
}

/** A member value split into the DN it names and its optional UID suffix (uniqueMember only). */
function splitValue(attribute: string, value: Buffer): { readonly dn: string; readonly uid: string } {
  const text = value.toString('utf8');
  const uid = attribute === 'uniquemember' ? (OPTIONAL_UID.exec(text)?.[0] ?? '') : '';
  return { dn: text.slice(0, text.length - uid.length), uid };
}

/** The DN a member value names, or undefined when it is not a DN. */
function memberDnOf(attribute: string, value: Buffer): Dn | undefined {
  try {
    return parseDn(splitValue(attribute, value).dn);
  } catch {
    return undefined;
  }
}

/** The dnKey a member value names, or undefined when it is not a DN. */
export function memberKeyOf(attribute: string, value: Buffer): string | undefined {
  const dn = memberDnOf(attribute, value);
  return dn && dnKey(dn);
}

/** The dnKeys of the entries the group names (none when it is not a group), itself left out. */
export function memberKeys(entry: Entry, key: string): Set<string> {
  const members = new Set<string>();
  for (const attribute of memberAttributes(entry)) {
    for (const value of values(entry, attribute)) {
      const member = memberKeyOf(attribute, value);
      if (member !== undefined && member !== key) members.add(member);
    }
  }
  return members;
}

/** The derived keys of an entry stored at `key`, with their values: none unless it is a group. */
export function membershipRecords(entry: Entry, key: string): Map<string, Buffer> {
  const records = new Map<string, Buffer>();
  if (!isGroup(entry)) return records;
  const dn = Buffer.from(entry.dn, 'utf8');
  records.set(groupKey(key), EMPTY);
  for (const member of memberKeys(entry, key)) {
    records.set(membershipKey(member, key), dn);
    records.set(memberOfKey(key, member), EMPTY);
  }
  return records;
}

/** What an entry's write does to the derived keys: those the old version had and the new lacks removed, the new ones put. */
export function membershipChanges(before: Entry | undefined, beforeKey: string, after: Entry | undefined, afterKey: string): BatchOp[] {
  const old = before ? membershipRecords(before, beforeKey) : new Map<string, Buffer>();
  const fresh = after ? membershipRecords(after, afterKey) : new Map<string, Buffer>();
  const ops: BatchOp[] = [];
  for (const key of old.keys()) if (!fresh.has(key)) ops.push({ type: 'del', key });
  for (const [key, value] of fresh) if (!old.get(key)?.equals(value)) ops.push({ type: 'put', key, value });
  return ops;
}

/** The entry with `change` applied to every member value (undefined: drop it); the same entry when nothing changed. */
function mapMemberValues(entry: Entry, change: (attribute: string, value: Buffer) => Buffer | undefined | null): Entry {
  const kinds = new Set(memberAttributes(entry));
  let changed = false;
  const attributes: Attribute[] = [];
  for (const attribute of entry.attributes) {
    const type = typeKey(attribute.name);
    if (!kinds.has(type)) {
      attributes.push(attribute);
      continue;
    }
    const kept = attribute.values.flatMap((value) => {
      const result = change(type, value);
      if (result === null) return [value];
      changed = true;
      return result === undefined ? [] : [result];
    });
    if (kept.length > 0) attributes.push({ name: attribute.name, values: kept });
  }
  return changed ? { dn: entry.dn, attributes } : entry;
}

/**
 * Refuses referential integrity over more than `limit` groups (0: no limit) with
 * adminLimitExceeded; `members` says whom they name ("X is a member of").
 */
export function checkRefintGroups(members: string, count: number, limit: number): void {
  if (limit > 0 && count > limit) {
    throw new DirectoryError('adminLimitExceeded',
      `${members} ${count} groups; a delete or rename updates at most ${limit} for referential integrity (--max-refint-groups)`);
  }
}

/** The group without the values naming `member` (its dnKey); the same entry if it names it nowhere. */
export function withoutMember(group: Entry, member: string): Entry {
  return mapMemberValues(group, (attribute, value) => (memberKeyOf(attribute, value) === member ? undefined : null));
}

/**
 * The group with each value naming a DN that `newDnOf` renames (given the DN the value names
 * and its dnKey; undefined: not renamed) naming the new DN, a UID suffix kept; a value that
 * would repeat one the group holds (or is given by an earlier rename) is dropped.
 */
export function withMembersRenamed(group: Entry, newDnOf: (dn: Dn, key: string) => Dn | undefined): Entry {
  const held = new Set<string>();
  const renames = new Map<Buffer, Dn>();
  for (const attribute of memberAttributes(group)) {
    for (const value of values(group, attribute)) {
      const dn = memberDnOf(attribute, value);
      const newDn = dn && newDnOf(dn, dnKey(dn));
      if (newDn) renames.set(value, newDn);
      else if (dn) held.add(`${attribute}\0${dnKey(dn)}\0${splitValue(attribute, value).uid}`);
    }
  }
  if (renames.size === 0) return group;
  return mapMemberValues(group, (attribute, value) => {
    const newDn = renames.get(value);
    if (!newDn) return null;
    const { uid } = splitValue(attribute, value);
    const id = `${attribute}\0${dnKey(newDn)}\0${uid}`;
    if (held.has(id)) return undefined;
    held.add(id);
    return Buffer.from(formatDn(newDn) + uid, 'utf8');
  });
}
