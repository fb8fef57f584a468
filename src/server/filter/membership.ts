/**
 * Filter items about group membership, worked out once per search, before its entries are
 * tested (the evaluator is synchronous; walks through groups read the store):
 *
 *   (memberOf=G), also ~=, :=, :distinguishedNameMatch:=   the entry is a member of G; with
 *                                         --memberof-nested, directly or through nested groups
 *   (memberOf:1.2.840.113556.1.4.1941:=G)  a member of G, directly or through nested groups
 *   (member:1.2.840.113556.1.4.1941:=X)    a group naming X, directly or through nested groups
 *                                         (uniqueMember the same); Active Directory's in-chain rule
 *
 * A memberOf item becomes the list of groups whose direct members match (G, and the groups below
 * it when nested), each probed per entry (Memberships.isMember, one synchronous read), and the
 * search may read only those groups' members; a member item becomes the set of groups above X,
 * which are the only candidates. A walk past --max-nested-groups refuses the search
 * (adminLimitExceeded) rather than answer from part of the groups. An assertion that is not a DN
 * makes the item Undefined. In-chain on any other attribute is an unknown rule (Undefined).
 */
import { DirectoryError, dnKey, parseDn, type DirectoryStore, type IndexHint } from '../../store/index.js';
import { memberKeyOf } from '../../store/groups.js';
import { typeKey } from '../../store/schema.js';
import { SchemaMemo } from '../../store/schema/memo.js';
import type { Filter } from '../../protocol/filter.js';
import { mentionsAttribute } from './attributes.js';
import { matchingRule } from './rules.js';

/** LDAP_MATCHING_RULE_IN_CHAIN (Active Directory). */
export const IN_CHAIN = '1.2.840.113556.1.4.1941';

/** How a membership item tests an entry, given its dnKey. */
export type MembershipTest = (key: string) => boolean;

type Extensible = Extract<Filter, { type: 'extensible' }>;

/** What kind of membership item a filter item is, if any. */
type Kind = { readonly memberOf: boolean; readonly inChain: boolean } | { readonly member: string };

/** The membership items of a search, resolved. */
export interface Memberships {
  /** Each item's test; undefined: the item is Undefined (its assertion is not a DN). */
  readonly tests: ReadonlyMap<Filter, MembershipTest | undefined>;
  /** The candidates an item allows, for the items an index hint may use. */
  readonly hints: ReadonlyMap<Filter, IndexHint>;
  /** Synchronous reads per entry tested (the groups probed): added to the filter's cost per entry. */
  readonly probes: number;
  /** Per hint, the item it came from and what is left to test of an entry it yields (withinHint). */
  readonly ofHints: ReadonlyMap<IndexHint, OfHint>;
}

/** A memberOf item's test for the entries its own hint yields: they are members of its groups, the item itself aside. */
interface OfHint {
  readonly item: Filter;
  readonly test: MembershipTest;
  readonly probes: number;
}

export const NO_MEMBERSHIPS: Memberships = { tests: new Map(), hints: new Map(), probes: 0, ofHints: new Map() };

export interface MembershipSettings {
  /** --memberof-nested: (memberOf=G) counts members through nested groups. */
  readonly nested: boolean;
  /** --max-nested-groups (0: no cap). */
  readonly maxGroups: number;
}

/** Is the extensible item's rule distinguishedNameMatch, or none (the type's equality)? */
function isDnEquality(item: Extensible): boolean {
  return item.matchingRule === undefined || matchingRule(item.matchingRule)?.oid === '2.5.13.1';
}

function extensibleKind(item: Extensible): Kind | undefined {
  if (item.attribute === undefined || item.attribute.includes(';')) return undefined;
  const type = typeKey(item.attribute);
  const inChain = item.matchingRule?.trim() === IN_CHAIN;
  if (type === 'memberof' && (inChain || isDnEquality(item))) return { memberOf: true, inChain };
  if (inChain && (type === 'member' || type === 'uniquemember')) return { member: type };
  return undefined;
}

/** The item's kind when it is about membership (an attribute with options is not: it selects no computed value). */
export function membershipKind(filter: Filter): Kind | undefined {
  if (filter.type === 'extensible') return extensibleKind(filter);
  if (filter.type !== 'equality' && filter.type !== 'approx') return undefined;
  if (filter.attribute.includes(';') || typeKey(filter.attribute) !== 'memberof') return undefined;
  return { memberOf: true, inChain: false };
}

/** Every item of the filter, once per object. */
function items(filter: Filter): Filter[] {
  if (filter.type === 'and' || filter.type === 'or') return filter.filters.flatMap(items);
  if (filter.type === 'not') return items(filter.filter);
  return [filter];
}

/** Groups' dnKeys by the DN as asserted, recently: the same group comes in search after search. */
const groupKeys = new SchemaMemo<string | undefined>(1024, 512);

function keyOf(value: Buffer): string | undefined {
  return groupKeys.get(value.toString('utf8'), dnKeyOfText);
}

function dnKeyOfText(text: string): string | undefined {
  try {
    return dnKey(parseDn(text));
  } catch {
    return undefined;
  }
}

function tooMany(assertion: Buffer, maxGroups: number): DirectoryError {
  return new DirectoryError('adminLimitExceeded',
    `administrative limit exceeded: following nested groups from ${assertion.toString('utf8').slice(0, 200)} expands more than ${maxGroups} groups (--max-nested-groups)`);
}

interface Resolved {
  readonly test: MembershipTest;
  readonly hint: IndexHint;
  readonly probes: number;
  /** The test of an entry the hint yields, when it is less than `test` (no probes). */
  readonly ofHint?: MembershipTest;
}

/** A memberOf item: the groups whose direct members match, probed per entry. */
async function memberOfItem(store: DirectoryStore, group: string, nested: boolean, settings: MembershipSettings, value: Buffer): Promise<Resolved> {
  const walked = nested ? await store.memberships.groupsBelow(group, settings.maxGroups) : { found: [group], complete: true };
  if (!walked.complete) throw tooMany(value, settings.maxGroups);
  const groups = walked.found;
  // A group is not its own member, even through a cycle (as its memberOf does not list it).
  const test = (key: string) => key !== group && groups.some((found) => store.memberships.isMember(key, found));
  return { test, hint: { membersOf: groups }, probes: groups.length, ofHint: (key) => key !== group };
}

/** A member in-chain item: the groups above the member, which are the only entries matching. */
async function memberItem(store: DirectoryStore, member: string, settings: MembershipSettings, value: Buffer): Promise<Resolved> {
  const walked = await store.memberships.groupsOf(member, true, settings.maxGroups);
  if (!walked.complete) throw tooMany(value, settings.maxGroups);
  const groups = new Set(walked.found.map((found) => found.key));
  return { test: (key) => groups.has(key), hint: { entries: [...groups] }, probes: 0 };
}

/** The item resolved, or undefined when its assertion is not a DN. */
function resolveItem(store: DirectoryStore, item: Filter & { readonly value: Buffer }, kind: Kind, settings: MembershipSettings): Promise<Resolved> | undefined {
  if ('member' in kind) {
    const member = memberKeyOf(kind.member, item.value);
    return member === undefined ? undefined : memberItem(store, member, settings, item.value);
  }
  const group = keyOf(item.value);
  return group === undefined ? undefined : memberOfItem(store, group, kind.inChain || settings.nested, settings, item.value);
}

/**
 * The filter's membership items resolved for one search (adminLimitExceeded past --max-nested-groups);
 * at once, without a promise, for a filter that has none.
 */
export function resolveMemberships(filter: Filter, store: DirectoryStore, settings: MembershipSettings): Memberships | Promise<Memberships> {
  if (!items(filter).some((item) => membershipKind(item) && 'value' in item)) return NO_MEMBERSHIPS;
  return resolveItems(filter, store, settings);
}

async function resolveItems(filter: Filter, store: DirectoryStore, settings: MembershipSettings): Promise<Memberships> {
  const tests = new Map<Filter, MembershipTest | undefined>();
  const hints = new Map<Filter, IndexHint>();
  const ofHints = new Map<IndexHint, OfHint>();
  let probes = 0;
  for (const item of items(filter)) {
    const kind = membershipKind(item);
    if (!kind || tests.has(item) || !('value' in item)) continue;
    const resolved = await resolveItem(store, item, kind, settings);
    tests.set(item, resolved?.test);
    if (!resolved) continue;
    hints.set(item, resolved.hint);
    if (resolved.ofHint) ofHints.set(resolved.hint, { item, test: resolved.ofHint, probes: resolved.probes });
    probes += resolved.probes;
  }
  return tests.size === 0 ? NO_MEMBERSHIPS : { tests, hints, probes, ofHints };
}

/**
 * The memberships for a walk over the entries of `hint`: the item the hint came from tests only
 * what its hint does not ensure (a group's members need no probe of that group: without this, 9%
 * of the largest group's search went to probing each of its members again).
 */
export function withinHint(memberships: Memberships, hint: IndexHint | undefined): Memberships {
  const of = hint && memberships.ofHints.get(hint);
  if (!of) return memberships;
  return { ...memberships, tests: new Map(memberships.tests).set(of.item, of.test), probes: memberships.probes - of.probes };
}

/** Whether some item naming memberOf was not resolved (a presence, an attribute with options...): it tests memberOf's values. */
export function needsMemberOfValues(filter: Filter, memberships: Memberships): boolean {
  return items(filter).some((item) => !memberships.tests.has(item) && mentionsAttribute(item, 'memberOf'));
}
