/** Attribute descriptions in filters: which values of an entry a description selects. */
import { values, type Entry } from '../../store/entry.js';
import { KEEP_NONE, type KeepName } from '../../store/codec.js';
import { MEMBER_OF } from '../../store/keys.js';
import { typeKey } from '../../store/schema.js';
import { SchemaMemo } from '../../store/schema/memo.js';
import type { Filter } from '../../protocol/filter.js';

/** Whether a filter's attribute description is well formed; a malformed one makes the item Undefined. */
export { validDescription } from '../../store/schema.js';

function optionsOf(description: string): string[] {
  return description.split(';').slice(1).map((option) => option.toLowerCase());
}

/**
 * The values a description selects: every attribute of its type (any alias, OID or case), and,
 * when it has options, only attributes having all of them (`cn;lang-en` selects `cn;lang-en`
 * and `cn;x;lang-en` but not `cn`). Supertypes (`name` for cn) are not followed.
 */
export function attributeValues(entry: Entry, description: string): Buffer[] {
  if (!description.includes(';')) return values(entry, description);
  const wanted = optionsOf(description);
  if (wanted.length === 0) return values(entry, description);
  const key = typeKey(description);
  return entry.attributes
    .filter((attribute) => typeKey(attribute.name) === key && wanted.every((option) => optionsOf(attribute.name).includes(option)))
    .flatMap((attribute) => attribute.values);
}

/** Whether the filter names this attribute type anywhere (by any alias or OID): `mentionsAttribute(f, 'hasSubordinates')`. */
export function mentionsAttribute(filter: Filter, description: string): boolean {
  // Without a type an extensible match applies to every attribute, this one included.
  const types = filterTypes(filter);
  return types === undefined || types.has(typeKey(description));
}

/**
 * The attribute types (type keys) whose values the filter reads, or undefined when it may read
 * any (an extensible match without a type): an entry decoded with only these attributes gets the
 * same truth as the whole entry, since a description selects only attributes of its own type.
 */
function filterTypes(filter: Filter): ReadonlySet<string> | undefined {
  const types = new Set<string>();
  return addTypes(filter, types) ? types : undefined;
}

function addTypes(filter: Filter, types: Set<string>): boolean {
  switch (filter.type) {
    case 'and':
    case 'or':
      return filter.filters.every((inner) => addTypes(inner, types));
    case 'not':
      return addTypes(filter.filter, types);
    case 'extensible':
      if (filter.attribute === undefined) return false;
      types.add(typeKey(filter.attribute));
      return true;
    default:
      types.add(typeKey(filter.attribute));
      return true;
  }
}

/** Names whose decision one set of types remembers, at most. */
const DECIDED_NAMES = 256;

/** Whether a name is of one of these types, decided once per name. */
function readsTypes(types: ReadonlySet<string>): KeepName {
  const decided = new Map<string, boolean>();
  return (name) => {
    let reads = decided.get(name);
    if (reads === undefined) {
      reads = types.has(typeKey(name));
      if (decided.size < DECIDED_NAMES) decided.set(name, reads);
    }
    return reads;
  };
}

/** The tests of the sets of types filters read, by the sorted list as JSON, a single type as `1:` and its key (no two sets share a text): the same few filters come in search after search. */
const typeTests = new SchemaMemo<KeepName>(256, 1024);

/**
 * Which attributes of an entry the filter reads (filterTypes), as a test of their names, or
 * undefined for all: a search decodes only those to test an entry (store/entry-record.ts).
 */
export function filterReads(filter: Filter): KeepName | undefined {
  const types = filterTypes(filter);
  if (types === undefined) return undefined;
  // memberOf is never stored: its items are tested from the memberships, not the record.
  if ([...types].every((type) => type === MEMBER_OF)) return KEEP_NONE;
  const text = types.size === 1 ? `1:${[...types][0]!}` : JSON.stringify([...types].sort());
  return typeTests.get(text, () => readsTypes(types));
}
