/**
 * Matching rules usable in extensible matches (`(cn:caseExactMatch:=Foo)`), by name or OID
 * (RFC 4517 4.2, RFC 4517 IA5 rules, and Active Directory's bit rules). Each prepares a test
 * of attribute values from the assertion, or returns undefined when the assertion is not a
 * valid value for the rule (the filter item is then Undefined).
 */
import type { Equality } from '../../store/schema.js';
import {
  equalityTest, orderingKey, orderingTest, parseBoolean, parseInteger, ruleType, type OrderingKey, type ValueTest,
} from './values.js';

export interface MatchingRule {
  readonly name: string;
  readonly oid: string;
  readonly prepare: (assertion: Buffer) => ValueTest | undefined;
}

function byEquality(equality: Equality): MatchingRule['prepare'] {
  return (assertion) => equalityTest(ruleType(equality), assertion);
}

/** Ordering rules used as extensible matches are TRUE when the value is less than the assertion (RFC 4517 4.2). */
function lessThan(key: OrderingKey): MatchingRule['prepare'] {
  return (assertion) => orderingTest(key, assertion, (order) => order < 0);
}

function octetString(assertion: Buffer): ValueTest {
  return (value) => value.equals(assertion);
}

function booleanValue(assertion: Buffer): ValueTest | undefined {
  const expected = parseBoolean(assertion);
  return expected === undefined ? undefined : (value) => parseBoolean(value) === expected;
}

function numericString(assertion: Buffer): ValueTest | undefined {
  const text = assertion.toString('utf8');
  if (!/^[0-9 ]*$/.test(text)) return undefined;
  const expected = text.replace(/ /g, '');
  return (value) => value.toString('utf8').replace(/ /g, '') === expected;
}

/** IA5 (ASCII) strings, spaces squeezed, optionally case-folded. */
function ia5(foldCase: boolean): MatchingRule['prepare'] {
  const form = (text: string): string => {
    const squeezed = text.replace(/ +/g, ' ').trim();
    return foldCase ? squeezed.toLowerCase() : squeezed;
  };
  return (assertion) => {
    const text = assertion.toString('latin1');
    if (!/^[\x00-\x7f]*$/.test(text)) return undefined;
    const expected = form(text);
    return (value) => form(value.toString('latin1')) === expected;
  };
}

/** bitAnd: every bit of the assertion is set in the value; bitOr: any bit is. */
function bits(all: boolean): MatchingRule['prepare'] {
  return (assertion) => {
    const mask = parseInteger(assertion);
    if (mask === undefined) return undefined;
    return (value) => {
      const number = parseInteger(value);
      if (number === undefined) return false;
      return all ? (number & mask) === mask : (number & mask) !== 0n;
    };
  };
}

const RULES: readonly MatchingRule[] = [
  { name: 'objectIdentifierMatch', oid: '2.5.13.0', prepare: byEquality('objectIdentifier') },
  { name: 'distinguishedNameMatch', oid: '2.5.13.1', prepare: byEquality('dn') },
  { name: 'caseIgnoreMatch', oid: '2.5.13.2', prepare: byEquality('caseIgnore') },
  { name: 'caseIgnoreOrderingMatch', oid: '2.5.13.3', prepare: lessThan(orderingKey('caseIgnore')!) },
  { name: 'caseExactMatch', oid: '2.5.13.5', prepare: byEquality('caseExact') },
  { name: 'caseExactOrderingMatch', oid: '2.5.13.6', prepare: lessThan(orderingKey('caseExact')!) },
  { name: 'numericStringMatch', oid: '2.5.13.8', prepare: numericString },
  { name: 'booleanMatch', oid: '2.5.13.13', prepare: booleanValue },
  { name: 'integerMatch', oid: '2.5.13.14', prepare: byEquality('integer') },
  { name: 'integerOrderingMatch', oid: '2.5.13.15', prepare: lessThan(orderingKey('integer')!) },
  { name: 'octetStringMatch', oid: '2.5.13.17', prepare: octetString },
  { name: 'telephoneNumberMatch', oid: '2.5.13.20', prepare: byEquality('telephone') },
  { name: 'generalizedTimeMatch', oid: '2.5.13.27', prepare: byEquality('generalizedTime') },
  { name: 'generalizedTimeOrderingMatch', oid: '2.5.13.28', prepare: lessThan(orderingKey('generalizedTime')!) },
  { name: 'caseExactIA5Match', oid: '1.3.6.1.4.1.1466.109.114.1', prepare: ia5(false) },
  { name: 'caseIgnoreIA5Match', oid: '1.3.6.1.4.1.1466.109.114.2', prepare: ia5(true) },
  { name: 'bitAndMatch', oid: '1.2.840.113556.1.4.803', prepare: bits(true) },
  { name: 'bitOrMatch', oid: '1.2.840.113556.1.4.804', prepare: bits(false) },
];

const BY_NAME = new Map<string, MatchingRule>();
for (const rule of RULES) {
  BY_NAME.set(rule.name.toLowerCase(), rule);
  BY_NAME.set(rule.oid, rule);
}

/** A rule by name (any case) or OID; undefined for rules this server does not know. */
export function matchingRule(nameOrOid: string): MatchingRule | undefined {
  return BY_NAME.get(nameOrOid.trim().toLowerCase());
}

export const MATCHING_RULES: readonly MatchingRule[] = RULES;
