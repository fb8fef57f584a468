/**
 * The size of a filter in terms: every and/or/not and every assertion counts one (what the
 * decoder counts against MAX_FILTER_ELEMENTS). A filter's cost on an entry grows with it, so the
 * server's limits are in terms: the caps on filter size (--max-filter-terms-anonymous,
 * --max-filter-terms), the cost budget of a search (terms x entries examined) and a search's
 * weight among a connection's operations in flight.
 */
import type { Filter } from '../../protocol/filter.js';

const counted = new WeakMap<Filter, number>();

/** The terms of a filter (counted once per Filter object). */
export function filterTerms(filter: Filter): number {
  let terms = counted.get(filter);
  if (terms === undefined) {
    terms = count(filter);
    counted.set(filter, terms);
  }
  return terms;
}

function count(filter: Filter): number {
  let terms = 0;
  const pending: Filter[] = [filter];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    terms += 1;
    if (next.type === 'and' || next.type === 'or') pending.push(...next.filters);
    else if (next.type === 'not') pending.push(next.filter);
  }
  return terms;
}
