/**
 * The index term for a search: one term that every matching entry satisfies, so the store may
 * read only the index's candidates. The server still evaluates the whole filter on each
 * candidate; a hint only has to narrow the scope to a superset of the matches. A membership item
 * the search resolved (membership.ts) gives its own candidates: the groups above a member, or
 * the members of groups.
 */
import type { IndexHint } from '../../store/index.js';
import { attributeType } from '../../store/schema.js';
import type { Filter } from '../../protocol/filter.js';

type ValueItem = Extract<Filter, { readonly attribute: string; readonly value: Buffer }>;
type Term = ValueItem | Extract<Filter, { type: 'present' }>;

/** Items every TRUE result requires: the filter itself or AND members, never under OR/NOT. */
function requiredItems(filter: Filter): Filter[] {
  if (filter.type === 'and') return filter.filters.flatMap(requiredItems);
  return filter.type === 'or' || filter.type === 'not' ? [] : [filter];
}

/** The required equality and presence items. */
function requiredTerms(filter: Filter): Term[] {
  return requiredItems(filter).filter((item): item is Term => item.type === 'equality' || item.type === 'present');
}

/**
 * Whether the index answers for this attribute exactly as the evaluator does: indexed, and
 * compared by normalizeValue. GeneralizedTime equality is chronological in the evaluator but
 * textual in the index, and hasSubordinates is computed, never stored; memberOf's candidates
 * come from its resolved items (membership.ts), nested groups included.
 */
function usable(description: string, indexed: ReadonlySet<string>): boolean {
  const type = attributeType(description);
  return indexed.has(type.key) && type.equality !== 'generalizedTime' && type.key !== 'hassubordinates' && type.key !== 'memberof';
}

/** The candidates of the first required membership item, the groups above a member first (few entries). */
function membershipHint(filter: Filter, memberships: ReadonlyMap<Filter, IndexHint>): IndexHint | undefined {
  const hints = requiredItems(filter).flatMap((item) => memberships.get(item) ?? []);
  return hints.find((hint) => 'entries' in hint) ?? hints[0];
}

/**
 * The best index term of the filter, given the store's indexed types (lower-case, as in
 * DirectoryStore.indexed) and the hints of the search's resolved membership items: an equality
 * on an indexed type other than objectClass, else a membership item's candidates, else an
 * objectClass equality (it matches many), else a presence on an indexed type (never objectClass:
 * every entry has it), else undefined (scan the scope).
 */
export function indexHint(filter: Filter, indexed: ReadonlySet<string>, memberships: ReadonlyMap<Filter, IndexHint> = new Map()): IndexHint | undefined {
  if (filter.type === 'equality' && usable(filter.attribute, indexed)) return { equality: { attribute: filter.attribute, value: filter.value } };
  const terms = requiredTerms(filter).filter((term) => usable(term.attribute, indexed));
  const equalities = terms.filter((term): term is ValueItem => term.type === 'equality');
  const equality = equalities.find((term) => attributeType(term.attribute).key !== 'objectclass');
  if (equality) return { equality: { attribute: equality.attribute, value: equality.value } };
  const membership = membershipHint(filter, memberships);
  if (membership) return membership;
  if (equalities[0]) return { equality: { attribute: equalities[0].attribute, value: equalities[0].value } };
  const presence = terms.find((term) => term.type === 'present' && attributeType(term.attribute).key !== 'objectclass');
  return presence ? { present: presence.attribute } : undefined;
}
