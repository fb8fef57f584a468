/**
 * Value-level matching the store's equality normalizers (src/store/normalize.ts) do not cover:
 * INTEGER and Boolean parsing (GeneralizedTime's is in src/store/time.ts), ordering keys,
 * substring forms, and equality tests that refuse an invalid assertion value (RFC 4511 4.5.1.7:
 * the filter item is then Undefined).
 * Candidates to move into src/store/normalize.ts.
 */
import { parseDn } from '../../store/dn.js';
import { SchemaMemo } from '../../store/schema/memo.js';
import { normalizeValue } from '../../store/normalize.js';
import type { AttributeType, Equality } from '../../store/schema.js';
import { parseGeneralizedTime } from '../../store/time.js';

/** RFC 4511 three-valued logic: TRUE, FALSE, or undefined for Undefined. */
export type Truth = boolean | undefined;

/** A test of one attribute value against an assertion prepared once. */
export type ValueTest = (value: Buffer) => boolean;

/**
 * A test that looks at a form of each value (normalized text, a time, an ordering key). The
 * evaluator computes each value's form once per entry and attribute for all the items of a filter
 * that share `form` (its name), so a filter of 9,999 terms on one attribute normalizes each value
 * once, not 9,999 times.
 */
export interface FormTest<T = unknown> {
  readonly form: string;
  readonly of: (value: Buffer) => T;
  readonly test: (form: T) => boolean;
}

/** The FormTest as a plain ValueTest (the form computed for each value tested). */
function valueTestOf<T>(formTest: FormTest<T>): ValueTest {
  return (value) => formTest.test(formTest.of(value));
}

type OrderKey = bigint | number | string;

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
  return validDns.get(assertion.toString('utf8'), isDn);
}

/** DN assertions checked recently: a filter's group (memberOf=G) comes in search after search. */
const validDns = new SchemaMemo<boolean>(1024, 512);

function isDn(text: string): boolean {
  try {
    parseDn(text);
    return true;
  } catch {
    return false;
  }
}

function timeEquality(assertion: Buffer): FormTest<number | undefined> | undefined {
  const expected = parseGeneralizedTime(assertion);
  return expected === undefined ? undefined : { form: 'time', of: parseGeneralizedTime, test: (time) => time === expected };
}

/**
 * The equality test of an attribute type for this assertion, or undefined if the assertion is
 * invalid (an INTEGER that is not a number, a DN that does not parse, a time that does not parse).
 * Values compare by normalizeValue, as the equality index does; GeneralizedTime compares
 * chronologically (`20240101120000+0200` equals `20240101100000Z`), which the index does not.
 */
export function equalityFormTest(type: AttributeType, assertion: Buffer): FormTest | undefined {
  if (type.equality === 'generalizedTime') return timeEquality(assertion) as FormTest | undefined;
  if (!validAssertion(type.equality, assertion)) return undefined;
  const expected = normalizeValue(type, assertion);
  return { form: `equality:${type.equality}`, of: (value) => normalizeValue(type, value), test: (normalized) => normalized === expected };
}

/** equalityFormTest as a ValueTest (for extensible matches). */
export function equalityTest(type: AttributeType, assertion: Buffer): ValueTest | undefined {
  const formTest = equalityFormTest(type, assertion);
  return formTest && valueTestOf(formTest);
}

/**
 * Approximate match: equality after lower-casing and squeezing spaces for string types (what
 * OpenLDAP does without a phonetic approx plugin, minus soundex), the equality rule otherwise.
 */
export function approxFormTest(type: AttributeType, assertion: Buffer): FormTest | undefined {
  const loose = type.equality === 'caseIgnore' || type.equality === 'caseExact';
  return equalityFormTest(loose ? ruleType('caseIgnore') : type, assertion);
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
function compareKeys(a: OrderKey, b: OrderKey): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A test of values against an assertion by ordering key: `accept(compareKeys(value, assertion))`. */
function orderingFormTest(form: string, key: OrderingKey, assertion: Buffer, accept: (order: number) => boolean): FormTest<OrderKey | undefined> | undefined {
  const expected = key(assertion);
  if (expected === undefined) return undefined;
  return { form, of: key, test: (actual) => actual !== undefined && accept(compareKeys(actual, expected)) };
}

/** greaterOrEqual / lessOrEqual under an equality rule's ordering; undefined when the rule has none or the assertion does not parse. */
export function orderingByRule(equality: Equality, assertion: Buffer, accept: (order: number) => boolean): FormTest | undefined {
  const key = ORDERINGS[equality];
  return key && (orderingFormTest(`ordering:${equality}`, key, assertion, accept) as FormTest | undefined);
}

/** orderingByRule for any ordering key, as a ValueTest (for extensible matches). */
export function orderingTest(key: OrderingKey, assertion: Buffer, accept: (order: number) => boolean): ValueTest | undefined {
  const formTest = orderingFormTest('', key, assertion, accept);
  return formTest && valueTestOf(formTest);
}

type Anchor = 'initial' | 'any' | 'final';

/** How substrings are sought in the values of one rule: the value's form and each component's. */
interface SubstringForm {
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

/** The parts of a substrings assertion (initial, any, final). */
export interface Substrings {
  readonly initial?: Buffer;
  readonly any: readonly Buffer[];
  readonly final?: Buffer;
}

/** The substrings test under a rule; none (the item is Undefined) for DN, INTEGER, OID and time. */
export function substringsFormTest(equality: Equality, parts: Substrings): FormTest<string> | undefined {
  const form = SUBSTRING_FORMS[equality];
  if (!form) return undefined;
  const initial = parts.initial && form.part(parts.initial, 'initial');
  const any = parts.any.map((part) => form.part(part, 'any'));
  const final = parts.final && form.part(parts.final, 'final');
  return { form: `substrings:${equality}`, of: form.value, test: (value) => containsInOrder(value, initial, any, final) };
}

/** initial, then each any in order, then final, none overlapping: the leftmost match is enough. */
function containsInOrder(value: string, initial: string | undefined, any: readonly string[], final: string | undefined): boolean {
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
