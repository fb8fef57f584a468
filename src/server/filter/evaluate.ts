/**
 * The search filter evaluator (RFC 4511 4.5.1.7), with three-valued logic: each item is TRUE,
 * FALSE or Undefined (`undefined`), and a search returns an entry only when its filter is TRUE.
 * Attribute names match in any case, by alias or OID; values by the attribute's matching rules.
 * A filter is compiled once into a test (assertion values normalized, rules looked up), cached
 * per Filter object, so a search pays per entry only for the entry's own values.
 */
import { parseDn, type Ava } from '../../store/dn.js';
import { values, type Entry } from '../../store/entry.js';
import { attributeType, typeKey } from '../../store/schema.js';
import { attributeValues, validDescription } from './attributes.js';
import { matchingRule } from './rules.js';
import type { Filter } from './types.js';
import {
  approxTest, containsInOrder, equalityTest, orderingKey, orderingTest, substringForm, type Truth, type ValueTest,
} from './values.js';

export type { Truth } from './values.js';

/** What the server computes rather than stores, for filters that name it. */
export interface MatchContext {
  /** Whether the entry has children: used for `(hasSubordinates=TRUE)` when the entry lacks the attribute. */
  readonly hasSubordinates?: boolean;
}

/** A compiled filter: the truth of the filter for one entry. */
export type FilterTest = (entry: Entry) => Truth;

type Item<T extends Filter['type']> = Extract<Filter, { type: T }>;
/** equality, approx, greaterOrEqual, lessOrEqual: one member of the Filter union. */
type ValueItem = Extract<Filter, { readonly attribute: string; readonly value: Buffer }>;

const UNDEFINED: FilterTest = () => undefined;
const TRUE_VALUE = Buffer.from('TRUE');
const FALSE_VALUE = Buffer.from('FALSE');

const compiled = new WeakMap<Filter, FilterTest>();

/** The filter compiled to a test of entries; compiled once per Filter object. */
export function compileFilter(filter: Filter): FilterTest {
  let test = compiled.get(filter);
  if (!test) {
    test = compile(filter);
    compiled.set(filter, test);
  }
  return test;
}

/** TRUE, FALSE or Undefined (`undefined`): the filter evaluated on the entry. */
export function matches(filter: Filter, entry: Entry, context: MatchContext = {}): Truth {
  return compileFilter(filter)(withComputed(entry, context));
}

/** The entry with hasSubordinates from the context, if it has none of its own. */
function withComputed(entry: Entry, context: MatchContext): Entry {
  if (context.hasSubordinates === undefined || values(entry, 'hasSubordinates').length > 0) return entry;
  const computed = { name: 'hasSubordinates', values: [context.hasSubordinates ? TRUE_VALUE : FALSE_VALUE] };
  return { dn: entry.dn, attributes: [...entry.attributes, computed] };
}

function compile(filter: Filter): FilterTest {
  switch (filter.type) {
    case 'and': return and(filter.filters.map(compile));
    case 'or': return or(filter.filters.map(compile));
    case 'not': return not(compile(filter.filter));
    case 'equality': return equality(filter);
    case 'approx': return approx(filter);
    case 'greaterOrEqual': return ordering(filter, (order) => order >= 0);
    case 'lessOrEqual': return ordering(filter, (order) => order <= 0);
    case 'substrings': return substrings(filter);
    case 'present': return present(filter);
    case 'extensible': return extensible(filter);
  }
}

/** FALSE if any is FALSE, else Undefined if any is Undefined, else TRUE (the empty AND is TRUE). */
function and(tests: readonly FilterTest[]): FilterTest {
  return (entry) => {
    let result: Truth = true;
    for (const test of tests) {
      const truth = test(entry);
      if (truth === false) return false;
      if (truth === undefined) result = undefined;
    }
    return result;
  };
}

/** TRUE if any is TRUE, else Undefined if any is Undefined, else FALSE (the empty OR is FALSE). */
function or(tests: readonly FilterTest[]): FilterTest {
  return (entry) => {
    let result: Truth = false;
    for (const test of tests) {
      const truth = test(entry);
      if (truth === true) return true;
      if (truth === undefined) result = undefined;
    }
    return result;
  };
}

/** NOT of Undefined is Undefined. */
function not(test: FilterTest): FilterTest {
  return (entry) => {
    const truth = test(entry);
    return truth === undefined ? undefined : !truth;
  };
}

/**
 * An attribute value assertion: Undefined when the description is malformed or no test could be
 * prepared (no such rule for the type, invalid assertion value); else TRUE if any value passes.
 */
function valueAssertion(description: string, test: ValueTest | undefined): FilterTest {
  if (!validDescription(description) || !test) return UNDEFINED;
  return (entry) => attributeValues(entry, description).some(test);
}

function equality(filter: ValueItem): FilterTest {
  return valueAssertion(filter.attribute, equalityTest(attributeType(filter.attribute), filter.value));
}

function approx(filter: ValueItem): FilterTest {
  return valueAssertion(filter.attribute, approxTest(attributeType(filter.attribute), filter.value));
}

/** greaterOrEqual / lessOrEqual by the syntax's ordering; Undefined for types without one. */
function ordering(filter: ValueItem, accept: (order: number) => boolean): FilterTest {
  const key = orderingKey(attributeType(filter.attribute).equality);
  return valueAssertion(filter.attribute, key && orderingTest(key, filter.value, accept));
}

function substrings(filter: Item<'substrings'>): FilterTest {
  const form = substringForm(attributeType(filter.attribute).equality);
  if (!form) return UNDEFINED;
  const initial = filter.initial && form.part(filter.initial, 'initial');
  const any = filter.any.map((part) => form.part(part, 'any'));
  const final = filter.final && form.part(filter.final, 'final');
  return valueAssertion(filter.attribute, (value) => containsInOrder(form.value(value), initial, any, final));
}

/** The entry has the attribute; `(objectClass=*)` is TRUE for every entry. */
function present(filter: Item<'present'>): FilterTest {
  if (!validDescription(filter.attribute)) return UNDEFINED;
  if (!filter.attribute.includes(';') && typeKey(filter.attribute) === 'objectclass') return () => true;
  return (entry) => attributeValues(entry, filter.attribute).length > 0;
}

/**
 * Extensible match (RFC 4511 4.5.1.7.7): the rule (or, without one, the type's equality rule)
 * applied to the type's values, or to every attribute's values when no type is given, and with
 * dnAttributes to the AVAs of the entry's DN too. An unknown rule is Undefined.
 */
function extensible(filter: Item<'extensible'>): FilterTest {
  const test = extensibleValueTest(filter);
  if (!test) return UNDEFINED;
  return (entry) => attributesPass(entry, filter.attribute, test) || (filter.dnAttributes && dnPasses(entry, filter.attribute, test));
}

function extensibleValueTest(filter: Item<'extensible'>): ValueTest | undefined {
  if (filter.attribute !== undefined && !validDescription(filter.attribute)) return undefined;
  if (filter.matchingRule !== undefined) return matchingRule(filter.matchingRule)?.prepare(filter.value);
  return filter.attribute === undefined ? undefined : equalityTest(attributeType(filter.attribute), filter.value);
}

function attributesPass(entry: Entry, description: string | undefined, test: ValueTest): boolean {
  if (description !== undefined) return attributeValues(entry, description).some(test);
  return entry.attributes.some((attribute) => attribute.values.some(test));
}

/** The DN's AVAs of this type (any type without one); '#hex' (BER) values are skipped. */
function dnPasses(entry: Entry, description: string | undefined, test: ValueTest): boolean {
  if (description?.includes(';')) return false;
  const key = description === undefined ? undefined : typeKey(description);
  return dnAvas(entry.dn).some((ava) => !ava.hex && (key === undefined || typeKey(ava.type) === key) && test(Buffer.from(ava.value, 'utf8')));
}

function dnAvas(dn: string): Ava[] {
  try {
    return parseDn(dn).flat();
  } catch {
    return [];
  }
}
