/**
 * Matching rules (RFC 4517 section 4.2, and a few more servers publish): their names and OIDs, the
 * syntax of their assertion value, and for equality rules which comparison the store makes
 * (src/store/normalize.ts: how values are normalized for DNs, indexes and filters). A literal table.
 */
import type { Equality } from './equality.js';

export type RuleKind = 'equality' | 'ordering' | 'substring';

export interface MatchingRule {
  readonly oid: string;
  readonly name: string;
  readonly syntax: string;
  readonly kind: RuleKind;
  /** For an equality rule: how the store compares values under it. */
  readonly equality?: Equality;
}

const LDAP = '1.3.6.1.4.1.1466.115.121.1.';

const equality = (oid: string, name: string, syntax: string, compare: Equality): MatchingRule => ({ oid, name, syntax: LDAP + syntax, kind: 'equality', equality: compare });
const ordering = (oid: string, name: string, syntax: string): MatchingRule => ({ oid, name, syntax: LDAP + syntax, kind: 'ordering' });
const substring = (oid: string, name: string): MatchingRule => ({ oid, name, syntax: `${LDAP}58`, kind: 'substring' });

const RULES: readonly MatchingRule[] = [
  equality('2.5.13.0', 'objectIdentifierMatch', '38', 'objectIdentifier'),
  equality('2.5.13.1', 'distinguishedNameMatch', '12', 'dn'),
  equality('2.5.13.2', 'caseIgnoreMatch', '15', 'caseIgnore'),
  ordering('2.5.13.3', 'caseIgnoreOrderingMatch', '15'),
  substring('2.5.13.4', 'caseIgnoreSubstringsMatch'),
  equality('2.5.13.5', 'caseExactMatch', '15', 'caseExact'),
  ordering('2.5.13.6', 'caseExactOrderingMatch', '15'),
  substring('2.5.13.7', 'caseExactSubstringsMatch'),
  // spaces are insignificant, as in telephone numbers (a Numeric String holds digits and spaces only)
  equality('2.5.13.8', 'numericStringMatch', '36', 'telephone'),
  ordering('2.5.13.9', 'numericStringOrderingMatch', '36'),
  substring('2.5.13.10', 'numericStringSubstringsMatch'),
  equality('2.5.13.11', 'caseIgnoreListMatch', '41', 'caseIgnore'),
  substring('2.5.13.12', 'caseIgnoreListSubstringsMatch'),
  equality('2.5.13.13', 'booleanMatch', '7', 'caseIgnore'),
  equality('2.5.13.14', 'integerMatch', '27', 'integer'),
  ordering('2.5.13.15', 'integerOrderingMatch', '27'),
  equality('2.5.13.16', 'bitStringMatch', '6', 'caseExact'),
  equality('2.5.13.17', 'octetStringMatch', '40', 'octet'),
  ordering('2.5.13.18', 'octetStringOrderingMatch', '40'),
  substring('2.5.13.19', 'octetStringSubstringsMatch'),
  equality('2.5.13.20', 'telephoneNumberMatch', '50', 'telephone'),
  substring('2.5.13.21', 'telephoneNumberSubstringsMatch'),
  equality('2.5.13.22', 'presentationAddressMatch', '43', 'caseIgnore'),
  equality('2.5.13.23', 'uniqueMemberMatch', '34', 'dn'),
  equality('2.5.13.24', 'protocolInformationMatch', '42', 'caseIgnore'),
  equality('2.5.13.27', 'generalizedTimeMatch', '24', 'generalizedTime'),
  ordering('2.5.13.28', 'generalizedTimeOrderingMatch', '24'),
  equality('2.5.13.29', 'integerFirstComponentMatch', '27', 'integer'),
  equality('2.5.13.30', 'objectIdentifierFirstComponentMatch', '38', 'objectIdentifier'),
  equality('2.5.13.31', 'directoryStringFirstComponentMatch', '15', 'caseIgnore'),
  equality('2.5.13.32', 'wordMatch', '15', 'caseIgnore'),
  equality('2.5.13.33', 'keywordMatch', '15', 'caseIgnore'),
  equality('2.5.13.34', 'certificateExactMatch', '8', 'octet'),
  equality('2.5.13.35', 'certificateMatch', '8', 'octet'),
  equality('2.5.13.36', 'certificatePairExactMatch', '10', 'octet'),
  equality('2.5.13.37', 'certificatePairMatch', '10', 'octet'),
  equality('2.5.13.38', 'certificateListExactMatch', '9', 'octet'),
  equality('2.5.13.39', 'certificateListMatch', '9', 'octet'),
  equality('2.5.13.40', 'algorithmIdentifierMatch', '49', 'octet'),
  equality('1.3.6.1.4.1.1466.109.114.1', 'caseExactIA5Match', '26', 'caseExact'),
  equality('1.3.6.1.4.1.1466.109.114.2', 'caseIgnoreIA5Match', '26', 'caseIgnore'),
  substring('1.3.6.1.4.1.1466.109.114.3', 'caseIgnoreIA5SubstringsMatch'),
  substring('1.3.6.1.4.1.4203.1.2.1', 'caseExactIA5SubstringsMatch'),
  { oid: '1.3.6.1.1.16.2', name: 'UUIDMatch', syntax: '1.3.6.1.1.16.1', kind: 'equality', equality: 'caseIgnore' },
  { oid: '1.3.6.1.1.16.3', name: 'UUIDOrderingMatch', syntax: '1.3.6.1.1.16.1', kind: 'ordering' },
  { oid: '1.3.6.1.4.1.4203.666.11.2.2', name: 'CSNMatch', syntax: '1.3.6.1.4.1.4203.666.11.2.1', kind: 'equality', equality: 'caseExact' },
  { oid: '1.3.6.1.4.1.4203.666.11.2.3', name: 'CSNOrderingMatch', syntax: '1.3.6.1.4.1.4203.666.11.2.1', kind: 'ordering' },
  equality('1.2.840.113556.1.4.803', 'integerBitAndMatch', '27', 'integer'),
  equality('1.2.840.113556.1.4.804', 'integerBitOrMatch', '27', 'integer'),
  { oid: '1.3.6.1.4.1.4203.1.2.3', name: 'authPasswordMatch', syntax: `${LDAP}40`, kind: 'equality', equality: 'octet' },
  { oid: '1.3.6.1.4.1.4203.1.2.2', name: 'authPasswordExactMatch', syntax: '1.3.6.1.4.1.4203.1.1.2', kind: 'equality', equality: 'octet' },
];

/** Every built-in matching rule by lower-cased name and by OID. */
export const BUILTIN_MATCHING_RULES: ReadonlyMap<string, MatchingRule> = new Map(
  RULES.flatMap((rule) => [[rule.name.toLowerCase(), rule] as const, [rule.oid, rule] as const]),
);

/** The rules themselves, in table order (for the subschema's matchingRules). */
export const MATCHING_RULE_LIST: readonly MatchingRule[] = RULES;
