/**
 * Search filters (RFC 4511 4.5.1) from BER. Nesting depth and the number of elements are
 * capped, so a hostile filter can neither exhaust the stack nor build a huge tree.
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

/** Counts the elements of one filter. */
interface Budget {
  elements: number;
}

type AssertionType = 'equality' | 'greaterOrEqual' | 'lessOrEqual' | 'approx';

export function decodeFilter(input: BerInput): Filter {
  return decodeAt(input, 0, { elements: 0 });
}

function decodeAt(input: BerInput, depth: number, budget: Budget): Filter {
  if (depth > MAX_FILTER_DEPTH) throw new ProtocolError(`filter nested deeper than ${MAX_FILTER_DEPTH}`);
  if (++budget.elements > MAX_FILTER_ELEMENTS) throw new ProtocolError(`filter has more than ${MAX_FILTER_ELEMENTS} elements`);
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
  return input.list(tag, what, () => decodeAt(input, depth + 1, budget));
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
