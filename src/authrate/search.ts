/**
 * A search template filled in for one iteration (authrate's search-then-bind, searchrate): the
 * base and filter with the iteration's arguments, the filter encoded with @ldapjs/filter.
 */
import filters from '@ldapjs/filter';
import type { SearchTemplate } from './options.js';
import type { SearchSpec } from './wire.js';

export function fillSearch(search: SearchTemplate, args: readonly string[]): SearchSpec {
  return {
    base: search.base(args), scope: search.scope, deref: search.deref, attributes: search.attributes,
    filter: filters.parseString(search.filter(args)).toBer().buffer,
  };
}
