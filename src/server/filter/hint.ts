/**
 * The index term for a search: one term that every matching entry satisfies, so the store may
 * read only the index's candidates. The server still evaluates the whole filter on each
 * candidate; a hint only has to narrow the scope to a superset of the matches.
 */
import type { IndexHint } from '../../store/store.js';
import { attributeType } from '../../store/schema.js';
import type { Filter } from '../../protocol/filter.js';

type ValueItem = Extract<Filter, { readonly attribute: string; readonly value: Buffer }>;
type Term = ValueItem | Extract<Filter, { type: 'present' }>;

/** Equality and presence items every TRUE result requires: the filter itself or AND members, never under OR/NOT. */
function requiredTerms(filter: Filter): Term[] {
  if (filter.type === 'equality' || filter.type === 'present') return [filter];
  if (filter.type === 'and') return filter.filters.flatMap(requiredTerms);
  return [];
}

/**
 * Whether the index answers for this attribute exactly as the evaluator does: indexed, and
 * compared by normalizeValue. GeneralizedTime equality is chronological in the evaluator but
 * textual in the index, and hasSubordinates is computed, never stored.
 */
function usable(description: string, indexed: ReadonlySet<string>): boolean {
  const type = attributeType(description);
  return indexed.has(type.key) && type.equality !== 'generalizedTime' && type.key !== 'hassubordinates';
}

/**
 * The best index term of the filter, given the store's indexed types (lower-case, as in
 * DirectoryStore.indexed): an equality on an indexed type (objectClass last, it matches many),
 * else a presence on one (never objectClass: every entry has it), else undefined (scan the scope).
 */
export function indexHint(filter: Filter, indexed: ReadonlySet<string>): IndexHint | undefined {
  const terms = requiredTerms(filter).filter((term) => usable(term.attribute, indexed));
  const equalities = terms.filter((term): term is ValueItem => term.type === 'equality');
  const equality = equalities.find((term) => attributeType(term.attribute).key !== 'objectclass') ?? equalities[0];
  if (equality) return { equality: { attribute: equality.attribute, value: equality.value } };
  const presence = terms.find((term) => term.type === 'present' && attributeType(term.attribute).key !== 'objectclass');
  return presence ? { present: presence.attribute } : undefined;
}
