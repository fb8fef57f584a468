/**
 * Value-level matching the store's equality normalizers (src/store/matching.ts) do not cover:
 * INTEGER and Boolean parsing (GeneralizedTime's is in src/store/time.ts), ordering keys,
 * substring forms, and equality tests that refuse an invalid assertion value (RFC 4511 4.5.1.7:
 * the filter item is then Undefined).
 * Candidates to move into src/store/matching.ts.
 */
import { parseDn } from '../../store/dn.js';
import { normalizeValue } from '../../store/matching.js';
import type { AttributeType, Equality } from '../../store/schema.js';
import { parseGeneralizedTime } from '../../store/time.js';

/** RFC 4511 three-valued logic: TRUE, FALSE, or undefined for Undefined. */
export type Truth = boolean | undefined;

/** A test of one attribute value against an assertion prepared once. */
export type ValueTest = (value: Buffer) => boolean;

export type OrderKey = bigint | number | string;

const RULE_TYPES = new Map<Equality, AttributeType>();

/** A stand-in attribute type, to apply an equality rule to any value: `ruleType('caseIgnore')`. */
export function ruleType(equality: Equality): AttributeType {
  let type = RULE_TYPES.get(equality);
  if (!type) {
    type = { name: equality, key: equality.toLowerCase(), equality, operational: false };
    RULE_TYPES.set(equality, type);
  }
  return type;
}

/** An INTEGER (RFC 4517 3.3.16), leniently: a sign, leading zeros and surrounding spaces are accepted. */
export function parseInteger(value: Buffer): bigint | undefined {
  const text = value.toString('utf8').trim();
  return /^[+-]?[0-9]+$/.test(text) ? BigInt(text) : undefined;
}

/** 'TRUE' or 'FALSE' (RFC 4517 3.3.3), in any case. */
export function parseBoolean(value: Buffer): boolean | undefined {
  const text = value.toString('utf8').trim().toUpperCase();
  return text === 'TRUE' ? true : text === 'FALSE' ? false : undefined;
}

/** Whether the assertion is a valid value for the rule; an invalid one makes the item Undefined. */
function validAssertion(equality: Equality, assertion: Buffer): boolean {
  if (equality === 'integer') return parseInteger(assertion) !== undefined;
  if (equality !== 'dn') return true;
  try {
    parseDn(assertion.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function timeEquality(assertion: Buffer): ValueTest | undefined {
  const expected = parseGeneralizedTime(assertion);
  return expected === undefined ? undefined : (value) => parseGeneralizedTime(value) === expected;
}

/**
 * The equality test of an attribute type for this assertion, or undefined if the assertion is
 * invalid (an INTEGER that is not a number, a DN that does not parse, a time that does not parse).
 * Values compare by normalizeValue, as the equality index does; GeneralizedTime compares
 * chronologically (`20240101120000+0200` equals `20240101100000Z`), which the index does not.
 */
export function equalityTest(type: AttributeType, assertion: Buffer): ValueTest | undefined {
  if (type.equality === 'generalizedTime') return timeEquality(assertion);
  if (!validAssertion(type.equality, assertion)) return undefined;
  const expected = normalizeValue(type, assertion);
  return (value) => normalizeValue(type, value) === expected;
}

/**
 * Approximate match: equality after lower-casing and squeezing spaces for string types (what
 * OpenLDAP does without a phonetic approx plugin, minus soundex), the equality rule otherwise.
 */
export function approxTest(type: AttributeType, assertion: Buffer): ValueTest | undefined {
  const loose = type.equality === 'caseIgnore' || type.equality === 'caseExact';
  return equalityTest(loose ? ruleType('caseIgnore') : type, assertion);
}

/** The ordering key of a value under a rule, undefined if the value does not parse. */
export type OrderingKey = (value: Buffer) => OrderKey | undefined;

/** Ordering per syntax: integers numerically, times chronologically, strings by their normalized form. */
const ORDERINGS: Partial<Record<Equality, OrderingKey>> = {
  integer: parseInteger,
  generalizedTime: parseGeneralizedTime,
  caseIgnore: (value) => normalizeValue(ruleType('caseIgnore'), value),
  caseExact: (value) => normalizeValue(ruleType('caseExact'), value),
};

/** The ordering rule that goes with an equality rule; none for octet, DN, OID and telephone. */
export function orderingKey(equality: Equality): OrderingKey | undefined {
  return ORDERINGS[equality];
}

/** Negative, zero or positive; strings by code point (their UTF-8 bytes), not UTF-16 units. */
export function compareKeys(a: OrderKey, b: OrderKey): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A test of values against an assertion by ordering key: `accept(compareKeys(value, assertion))`. */
export function orderingTest(key: OrderingKey, assertion: Buffer, accept: (order: number) => boolean): ValueTest | undefined {
  const expected = key(assertion);
  if (expected === undefined) return undefined;
  return (value) => {
    const actual = key(value);
    return actual !== undefined && accept(compareKeys(actual, expected));
  };
}

export type Anchor = 'initial' | 'any' | 'final';

/** How substrings are sought in the values of one rule: the value's form and each component's. */
export interface SubstringForm {
  readonly value: (value: Buffer) => string;
  readonly part: (part: Buffer, anchor: Anchor) => string;
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/**
 * Case-folded (or not) text with runs of spaces as one; the value is trimmed, so an initial
 * loses its leading spaces and a final its trailing ones, while inner spaces stay significant.
 */
function spacedForm(fold: (text: string) => string): SubstringForm {
  return {
    value: (value) => squeeze(fold(value.toString('utf8'))).trim(),
    part: (part, anchor) => {
      const text = squeeze(fold(part.toString('utf8')));
      return anchor === 'initial' ? text.trimStart() : anchor === 'final' ? text.trimEnd() : text;
    },
  };
}

const telephone = (value: Buffer): string => normalizeValue(ruleType('telephone'), value);
const octets = (value: Buffer): string => value.toString('latin1');

const SUBSTRING_FORMS: Partial<Record<Equality, SubstringForm>> = {
  caseIgnore: spacedForm((text) => text.normalize('NFKC').toLowerCase()),
  caseExact: spacedForm((text) => text.normalize('NFKC')),
  telephone: { value: telephone, part: telephone },
  octet: { value: octets, part: octets },
};

/** The substring form of a rule; none (the item is Undefined) for DN, INTEGER, OID and time. */
export function substringForm(equality: Equality): SubstringForm | undefined {
  return SUBSTRING_FORMS[equality];
}

/** initial, then each any in order, then final, none overlapping: the leftmost match is enough. */
export function containsInOrder(value: string, initial: string | undefined, any: readonly string[], final: string | undefined): boolean {
  let position = 0;
  if (initial !== undefined) {
    if (!value.startsWith(initial)) return false;
    position = initial.length;
  }
  for (const part of any) {
    const found = value.indexOf(part, position);
    if (found === -1) return false;
    position = found + part.length;
  }
  return final === undefined || (value.length - final.length >= position && value.endsWith(final));
}
