/**
 * A search template filled in for one iteration (authrate's search-then-bind, searchrate): the
 * base and filter with the iteration's arguments, the filter encoded by filter-text.ts (RFC 4515
 * escapes decoded). A filled-in filter that is not one (a value holding "(") throws
 * FilterSyntaxError: the worker counts it as that iteration's error, BAD_FILTER.
 */
import { encodeFilterText, FilterSyntaxError } from './filter-text.js';
import type { SearchTemplate } from './options.js';
import type { SearchSpec } from './wire.js';

/** The result code counted for an iteration whose filter does not parse: OpenLDAP's client library's LDAP_FILTER_ERROR ("Bad search filter"). */
export const BAD_FILTER = -7;

/** The search of this iteration, or BAD_FILTER when its filled-in filter is not a filter. */
export function fillSearch(search: SearchTemplate, args: readonly string[]): SearchSpec | typeof BAD_FILTER {
  let filter: Buffer;
  try {
    filter = encodeFilterText(search.filter(args));
  } catch (error) {
    if (error instanceof FilterSyntaxError) return BAD_FILTER;
    throw error;
  }
  return { base: search.base(args), scope: search.scope, deref: search.deref, attributes: search.attributes, filter };
}
