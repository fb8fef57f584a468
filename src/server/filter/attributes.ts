/** Attribute descriptions in filters: which values of an entry a description selects. */
import { values, type Entry } from '../../store/entry.js';
import { typeKey } from '../../store/schema.js';
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
  const wanted = optionsOf(description);
  if (wanted.length === 0) return values(entry, description);
  const key = typeKey(description);
  return entry.attributes
    .filter((attribute) => typeKey(attribute.name) === key && wanted.every((option) => optionsOf(attribute.name).includes(option)))
    .flatMap((attribute) => attribute.values);
}

/** Whether the filter names this attribute type anywhere (by any alias or OID): `mentionsAttribute(f, 'hasSubordinates')`. */
export function mentionsAttribute(filter: Filter, description: string): boolean {
  switch (filter.type) {
    case 'and':
    case 'or':
      return filter.filters.some((inner) => mentionsAttribute(inner, description));
    case 'not':
      return mentionsAttribute(filter.filter, description);
    case 'extensible':
      // Without a type the rule applies to every attribute, this one included.
      return filter.attribute === undefined || typeKey(filter.attribute) === typeKey(description);
    default:
      return typeKey(filter.attribute) === typeKey(description);
  }
}
