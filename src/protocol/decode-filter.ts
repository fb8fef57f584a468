/**
 * Search filters (RFC 4511 4.5.1) from BER. Nesting depth and the number of elements are
 * capped, so a hostile filter can neither exhaust the stack nor build a huge tree. A caller that
 * will refuse a filter past some size (the server's caps on filter terms) can ask for only its
 * first terms: the rest is stepped over and counted, not built (a 9,999-term filter then costs
 * its refusal what a few hundred terms cost, not 4 ms of decoding and megabytes of garbage).
 */
import type { Filter } from './filter.js';
import { ProtocolError } from './errors.js';
import { hex, type BerInput } from './reader.js';

/** The deepest nesting of and/or/not accepted (OpenLDAP and 389 accept far less in practice). */
export const MAX_FILTER_DEPTH = 64;
/** The most filter elements (every and/or/not and every assertion) in one filter. */
export const MAX_FILTER_ELEMENTS = 10_000;

const FilterTag = {
  And: 0xa0,
  Or: 0xa1,
  Not: 0xa2,
  Equality: 0xa3,
  Substrings: 0xa4,
  GreaterOrEqual: 0xa5,
  LessOrEqual: 0xa6,
  Present: 0x87,
  Approx: 0xa8,
  Extensible: 0xa9,
} as const;

const ASSERTION_TAGS: ReadonlySet<number> = new Set([FilterTag.Equality, FilterTag.Substrings, FilterTag.GreaterOrEqual,
  FilterTag.LessOrEqual, FilterTag.Present, FilterTag.Approx, FilterTag.Extensible]);

const SubstringTag = {
  Initial: 0x80,
  Any: 0x81,
  Final: 0x82,
} as const;

const ExtensibleTag = {
  MatchingRule: 0x81,
  Type: 0x82,
  MatchValue: 0x83,
  DnAttributes: 0x84,
} as const;

const OCTET_STRING = 0x04;
const SEQUENCE = 0x30;

/** Counts the elements of one filter; past `keep` of them the rest are counted, not built. */
interface Budget {
  elements: number;
  readonly keep: number;
  /** Was any filter stepped over? */
  skipped?: boolean;
}

/** A filter decoded up to a number of terms: `terms` counts them all; `cut`: only the first were kept. */
export interface KeptFilter {
  readonly filter: Filter;
  readonly terms: number;
  readonly cut: boolean;
}

type AssertionType = 'equality' | 'greaterOrEqual' | 'lessOrEqual' | 'approx';

export function decodeFilter(input: BerInput): Filter {
  return decodeAt(input, 0, { elements: 0, keep: MAX_FILTER_ELEMENTS });
}

/**
 * The filter with at most about `keep` of its terms built: an and/or stops taking filters once
 * that many were decoded, and the others are only counted (and checked against the depth and
 * element caps). A cut filter is a prefix of the one sent, to be refused, never evaluated.
 */
export function decodeFilterKept(input: BerInput, keep: number): KeptFilter {
  const budget = { elements: 0, keep, skipped: false };
  const filter = decodeAt(input, 0, budget);
  return { filter, terms: budget.elements, cut: budget.skipped };
}

/** Counts one more element at `depth`, within the caps. */
function count(depth: number, budget: Budget): void {
  if (depth > MAX_FILTER_DEPTH) throw new ProtocolError(`filter nested deeper than ${MAX_FILTER_DEPTH}`);
  if (++budget.elements > MAX_FILTER_ELEMENTS) throw new ProtocolError(`filter has more than ${MAX_FILTER_ELEMENTS} elements`);
}

function decodeAt(input: BerInput, depth: number, budget: Budget): Filter {
  count(depth, budget);
  const tag = input.peek();
  switch (tag) {
    case FilterTag.And:
      return { type: 'and', filters: decodeSet(input, tag, 'and filter', depth, budget) };
    case FilterTag.Or:
      return { type: 'or', filters: decodeSet(input, tag, 'or filter', depth, budget) };
    case FilterTag.Not:
      return decodeNot(input, depth, budget);
    case FilterTag.Equality:
      return decodeAssertion(input, tag, 'equality');
    case FilterTag.GreaterOrEqual:
      return decodeAssertion(input, tag, 'greaterOrEqual');
    case FilterTag.LessOrEqual:
      return decodeAssertion(input, tag, 'lessOrEqual');
    case FilterTag.Approx:
      return decodeAssertion(input, tag, 'approx');
    case FilterTag.Substrings:
      return decodeSubstrings(input);
    case FilterTag.Present:
      return { type: 'present', attribute: input.string(FilterTag.Present, 'present filter') };
    case FilterTag.Extensible:
      return decodeExtensible(input);
    case undefined:
      throw new ProtocolError('filter: missing');
    default:
      throw new ProtocolError(`filter: unknown choice 0x${hex(tag)}`);
  }
}

/**
 * The filters of an and/or. An empty set is accepted: RFC 4526's absolute true `(&)` and
 * false `(|)`.
 */
function decodeSet(input: BerInput, tag: number, what: string, depth: number, budget: Budget): Filter[] {
  const outer = input.enter(tag, what);
  const filters: Filter[] = [];
  while (input.peek() !== undefined) {
    if (budget.elements < budget.keep) filters.push(decodeAt(input, depth + 1, budget));
    else skipAt(input, depth + 1, budget);
  }
  input.leave(outer, what);
  return filters;
}

/** Steps over one filter, counting its elements (an assertion's content is not read). */
function skipAt(input: BerInput, depth: number, budget: Budget): void {
  count(depth, budget);
  budget.skipped = true;
  const tag = input.peek();
  if (tag === FilterTag.And || tag === FilterTag.Or) {
    const outer = input.enter(tag, 'filter');
    while (input.peek() !== undefined) skipAt(input, depth + 1, budget);
    input.leave(outer, 'filter');
  } else if (tag === FilterTag.Not) {
    const outer = input.enter(tag, 'not filter');
    skipAt(input, depth + 1, budget);
    input.leave(outer, 'not filter');
  } else if (tag !== undefined && ASSERTION_TAGS.has(tag)) {
    input.skip(tag, 'filter');
  } else {
    throw new ProtocolError(tag === undefined ? 'filter: missing' : `filter: unknown choice 0x${hex(tag)}`);
  }
}

function decodeNot(input: BerInput, depth: number, budget: Budget): Filter {
  const outer = input.enter(FilterTag.Not, 'not filter');
  const filter = decodeAt(input, depth + 1, budget);
  input.leave(outer, 'not filter');
  return { type: 'not', filter };
}

/** equalityMatch, greaterOrEqual, lessOrEqual, approxMatch: an AttributeValueAssertion. */
function decodeAssertion(input: BerInput, tag: number, type: AssertionType): Filter {
  const what = `${type} filter`;
  const outer = input.enter(tag, what);
  const attribute = input.string(OCTET_STRING, `${what} attribute`);
  const value = input.octets(OCTET_STRING, `${what} value`);
  input.leave(outer, what);
  return { type, attribute, value };
}

function decodeSubstrings(input: BerInput): Filter {
  const outer = input.enter(FilterTag.Substrings, 'substrings filter');
  const attribute = input.string(OCTET_STRING, 'substrings filter attribute');
  const list = input.enter(SEQUENCE, 'substrings');
  const parts = decodeSubstringParts(input);
  input.leave(list, 'substrings');
  input.leave(outer, 'substrings filter');
  return { type: 'substrings', attribute, ...parts };
}

interface SubstringParts {
  initial?: Buffer;
  any: Buffer[];
  final?: Buffer;
}

/** initial at most once and first, final at most once and last, any in between; at least one. */
function decodeSubstringParts(input: BerInput): SubstringParts {
  const parts: SubstringParts = { any: [] };
  let count = 0;
  for (let tag = input.peek(); tag !== undefined; tag = input.peek(), count++) {
    if (parts.final !== undefined) throw new ProtocolError('substrings: final must be the last substring');
    if (tag === SubstringTag.Initial) {
      if (count > 0) throw new ProtocolError('substrings: initial must be the first substring');
      parts.initial = input.octets(tag, 'substring initial');
    } else if (tag === SubstringTag.Any) {
      parts.any.push(input.octets(tag, 'substring any'));
    } else if (tag === SubstringTag.Final) {
      parts.final = input.octets(tag, 'substring final');
    } else {
      throw new ProtocolError(`substrings: unknown choice 0x${hex(tag)}`);
    }
  }
  if (count === 0) throw new ProtocolError('substrings: empty');
  return parts;
}

/** MatchingRuleAssertion: matchingRule [1]?, type [2]?, matchValue [3], dnAttributes [4]? */
function decodeExtensible(input: BerInput): Filter {
  const what = 'extensibleMatch filter';
  const outer = input.enter(FilterTag.Extensible, what);
  const matchingRule = optionalString(input, ExtensibleTag.MatchingRule, 'extensibleMatch matchingRule');
  const attribute = optionalString(input, ExtensibleTag.Type, 'extensibleMatch type');
  const value = input.octets(ExtensibleTag.MatchValue, 'extensibleMatch matchValue');
  const dnAttributes = input.peek() === ExtensibleTag.DnAttributes
    ? input.boolean(ExtensibleTag.DnAttributes, 'extensibleMatch dnAttributes')
    : false;
  input.leave(outer, what);
  if (matchingRule === undefined && attribute === undefined) {
    throw new ProtocolError('extensibleMatch: needs a matching rule or a type');
  }
  return {
    type: 'extensible',
    ...(matchingRule !== undefined && { matchingRule }),
    ...(attribute !== undefined && { attribute }),
    value,
    dnAttributes,
  };
}

function optionalString(input: BerInput, tag: number, what: string): string | undefined {
  return input.peek() === tag ? input.string(tag, what) : undefined;
}
