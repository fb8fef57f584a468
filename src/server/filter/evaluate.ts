/**
 * The search filter evaluator (RFC 4511 4.5.1.7), with three-valued logic: each item is TRUE,
 * FALSE or Undefined (`undefined`), and a search returns an entry only when its filter is TRUE.
 * Attribute names match in any case, by alias or OID; values by the attribute's matching rules.
 * A filter is compiled once into a test (assertion values normalized, rules looked up), cached
 * per Filter object, so a search pays per entry only for the entry's own values; and within one
 * entry, each attribute's values are selected, and put in each form the items need (normalized,
 * a time, an ordering key), once for all the items of the filter (a Memo per evaluation).
 * Membership items (membership.ts) resolved for the search are answered from their tests;
 * memberOf's values, when the search needs them, come computed in the context.
 */
import { parseDn, type Ava } from '../../store/dn.js';
import { values, type Attribute, type Entry } from '../../store/entry.js';
import { attributeType, isKnownType, typeKey } from '../../store/schema.js';
import { attributeValues, validDescription } from './attributes.js';

/**
 * Whether an item may name this description: well formed, and a type the schema defines. Any
 * other is Undefined (RFC 4511 4.5.1.7, as slapd): so `(!(fooBar=x))` matches nothing, as it
 * does on slapd, where evaluated as a string it matched every entry.
 */
const usable = (description: string): boolean => validDescription(description) && isKnownType(description);
import { membershipKind, type MembershipTest } from './membership.js';
import { matchingRule } from './rules.js';
import type { Filter } from '../../protocol/filter.js';
import {
  approxFormTest, equalityFormTest, equalityTest, orderingByRule, substringsFormTest, type FormTest, type Truth, type ValueTest,
} from './values.js';

export type { Truth } from './values.js';

/** What the server computes rather than stores, for filters that name it. */
export interface MatchContext {
  /** Whether the entry has children: used for `(hasSubordinates=TRUE)` when the entry lacks the attribute. */
  readonly hasSubordinates?: boolean;
  /** memberOf's values (the groups naming the entry), for the items that are not resolved memberships. */
  readonly memberOf?: readonly Buffer[];
  /** The search's resolved membership items (membership.ts) and the entry's dnKey to test them with. */
  readonly memberships?: { readonly tests: ReadonlyMap<Filter, MembershipTest | undefined>; readonly key: string };
}

/** A compiled filter: the truth of the filter for one entry. */
export type FilterTest = (entry: Entry, context?: MatchContext) => Truth;

/** What one evaluation on one entry has worked out, by key: an attribute's values, their forms. */
type Memo = Map<string, readonly unknown[]>;
/** A compiled filter item. */
type Test = (entry: Entry, memo: Memo, context: MatchContext) => Truth;

type Item<T extends Filter['type']> = Extract<Filter, { type: T }>;
/** equality, approx, greaterOrEqual, lessOrEqual: one member of the Filter union. */
type ValueItem = Extract<Filter, { readonly attribute: string; readonly value: Buffer }>;

const UNDEFINED: Test = () => undefined;
const TRUE_VALUE = Buffer.from('TRUE');
const FALSE_VALUE = Buffer.from('FALSE');

const compiled = new WeakMap<Filter, FilterTest>();

/** The filter compiled to a test of entries; compiled once per Filter object. */
export function compileFilter(filter: Filter): FilterTest {
  let test = compiled.get(filter);
  if (!test) {
    const item = compile(filter);
    test = (entry, context = {}) => item(entry, new Map(), context);
    compiled.set(filter, test);
  }
  return test;
}

/**
 * The filter compiled for one search, to test each of its candidates with (as matches does): not
 * kept in the per-Filter cache, which a filter that lives for one search would only burden (a
 * WeakMap entry is an ephemeron the collector must trace).
 */
export function matcher(filter: Filter): (entry: Entry, context?: MatchContext) => Truth {
  const item = compile(filter);
  // One memo for the search's entries, emptied after each (an evaluation is synchronous).
  const memo: Memo = new Map();
  return (entry, context = {}) => {
    try {
      return item(withComputed(entry, context), memo, context);
    } finally {
      memo.clear();
    }
  };
}

/** TRUE, FALSE or Undefined (`undefined`): the filter evaluated on the entry. */
export function matches(filter: Filter, entry: Entry, context: MatchContext = {}): Truth {
  return compileFilter(filter)(withComputed(entry, context), context);
}

/** The entry with hasSubordinates from the context, if it has none of its own, and memberOf's computed values. */
function withComputed(entry: Entry, context: MatchContext): Entry {
  if (context.hasSubordinates === undefined && context.memberOf === undefined) return entry;
  const computed: Attribute[] = [];
  if (context.hasSubordinates !== undefined && values(entry, 'hasSubordinates').length === 0) {
    computed.push({ name: 'hasSubordinates', values: [context.hasSubordinates ? TRUE_VALUE : FALSE_VALUE] });
  }
  if (context.memberOf !== undefined && context.memberOf.length > 0) computed.push({ name: 'memberOf', values: context.memberOf });
  return computed.length === 0 ? entry : { dn: entry.dn, attributes: [...entry.attributes, ...computed] };
}

function compile(filter: Filter): Test {
  return membershipKind(filter) ? resolvedOr(filter, compileItem(filter)) : compileItem(filter);
}

/** A membership item: its test when the search resolved it, else the item evaluated on values (an in-chain rule: Undefined). */
function resolvedOr(filter: Filter, unresolved: Test): Test {
  return (entry, memo, context) => {
    const resolved = context.memberships;
    if (!resolved?.tests.has(filter)) return unresolved(entry, memo, context);
    const test = resolved.tests.get(filter);
    return test === undefined ? undefined : test(resolved.key);
  };
}

function compileItem(filter: Filter): Test {
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
function and(tests: readonly Test[]): Test {
  return (entry, memo, context) => {
    let result: Truth = true;
    for (const test of tests) {
      const truth = test(entry, memo, context);
      if (truth === false) return false;
      if (truth === undefined) result = undefined;
    }
    return result;
  };
}

/** TRUE if any is TRUE, else Undefined if any is Undefined, else FALSE (the empty OR is FALSE). */
function or(tests: readonly Test[]): Test {
  return (entry, memo, context) => {
    let result: Truth = false;
    for (const test of tests) {
      const truth = test(entry, memo, context);
      if (truth === true) return true;
      if (truth === undefined) result = undefined;
    }
    return result;
  };
}

/** NOT of Undefined is Undefined. */
function not(test: Test): Test {
  return (entry, memo, context) => {
    const truth = test(entry, memo, context);
    return truth === undefined ? undefined : !truth;
  };
}

/** The memo key of the values a description selects. */
const selectedKey = (description: string): string => `\0${description}`;

/** The values the description selects (read), worked out once per evaluation; `key`: selectedKey(description). */
function selected(entry: Entry, memo: Memo, read: ValuesOf, key: string): readonly Buffer[] {
  let found = memo.get(key) as readonly Buffer[] | undefined;
  if (!found) {
    found = read(entry);
    memo.set(key, found);
  }
  return found;
}

type ValuesOf = (entry: Entry) => readonly Buffer[];

/** How a description's values are read: entryDN (RFC 5020) is the entry's DN, computed; the rest as stored (attributeValues). */
function valuesOf(description: string): ValuesOf {
  if (!description.includes(';') && typeKey(description) === 'entrydn') return (entry) => [Buffer.from(entry.dn, 'utf8')];
  return (entry) => attributeValues(entry, description);
}

/**
 * An attribute value assertion: Undefined when the description is malformed or no test could be
 * prepared (no such rule for the type, invalid assertion value); else TRUE if any value passes.
 * The values' forms are shared with every item of the filter on the same description and form.
 */
function valueAssertion(description: string, formTest: FormTest | undefined): Test {
  if (!usable(description) || !formTest) return UNDEFINED;
  const key = `${formTest.form}\0${description}`;
  const valuesKey = selectedKey(description);
  const read = valuesOf(description);
  return (entry, memo) => {
    let forms = memo.get(key);
    if (!forms) {
      forms = selected(entry, memo, read, valuesKey).map(formTest.of);
      memo.set(key, forms);
    }
    return forms.some(formTest.test);
  };
}

function equality(filter: ValueItem): Test {
  return valueAssertion(filter.attribute, equalityFormTest(attributeType(filter.attribute), filter.value));
}

function approx(filter: ValueItem): Test {
  return valueAssertion(filter.attribute, approxFormTest(attributeType(filter.attribute), filter.value));
}

/** greaterOrEqual / lessOrEqual by the syntax's ordering; Undefined for types without one. */
function ordering(filter: ValueItem, accept: (order: number) => boolean): Test {
  return valueAssertion(filter.attribute, orderingByRule(attributeType(filter.attribute).equality, filter.value, accept));
}

function substrings(filter: Item<'substrings'>): Test {
  return valueAssertion(filter.attribute, substringsFormTest(attributeType(filter.attribute).equality, filter) as FormTest | undefined);
}

/** The entry has the attribute; `(objectClass=*)` is TRUE for every entry. */
function present(filter: Item<'present'>): Test {
  if (!usable(filter.attribute)) return UNDEFINED;
  if (!filter.attribute.includes(';') && typeKey(filter.attribute) === 'objectclass') return () => true;
  const key = selectedKey(filter.attribute);
  const read = valuesOf(filter.attribute);
  return (entry, memo) => selected(entry, memo, read, key).length > 0;
}

/**
 * Extensible match (RFC 4511 4.5.1.7.7): the rule (or, without one, the type's equality rule)
 * applied to the type's values, or to every attribute's values when no type is given, and with
 * dnAttributes to the AVAs of the entry's DN too. An unknown rule is Undefined.
 */
function extensible(filter: Item<'extensible'>): Test {
  const test = extensibleValueTest(filter);
  if (!test) return UNDEFINED;
  return (entry) => attributesPass(entry, filter.attribute, test) || (filter.dnAttributes && dnPasses(entry, filter.attribute, test));
}

function extensibleValueTest(filter: Item<'extensible'>): ValueTest | undefined {
  if (filter.attribute !== undefined && !usable(filter.attribute)) return undefined;
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
