/**
 * The subschema entry (RFC 4512 4.2), named cn=Subschema as OpenLDAP names it: every attribute
 * type, object class, syntax and matching rule of the registry, and which types each rule
 * applies to. Its objectClass and cn are user attributes; the definitions and timestamps are
 * operational (asked for by name or '+'), as OpenLDAP returns them.
 */
import type { Entry } from '../entry.js';
import { formatAttributeType, formatMatchingRule, formatMatchingRuleUse, formatObjectClass, formatSyntax } from './format.js';
import { MATCHING_RULE_LIST } from './matching-rules.js';
import type { SchemaAttributeType, SchemaRegistry } from './registry.js';

export const SUBSCHEMA_DN = 'cn=Subschema';
export const SUBSCHEMA_KEY = 'cn=subschema';

const text = (values: readonly string[]): Buffer[] => values.map((value) => Buffer.from(value, 'utf8'));

/** The types that use each rule, for matchingRuleUse (rules no type uses are left out). */
function ruleUses(types: readonly SchemaAttributeType[]): string[] {
  return MATCHING_RULE_LIST.flatMap((rule) => {
    const users = types.filter((type) => type.equality === rule || type.ordering === rule || type.substr === rule);
    return users.length === 0 ? [] : [formatMatchingRuleUse(rule, users)];
  });
}

/** The entry; `timestamp` (GeneralizedTime) is when this schema was loaded. */
export function subschemaEntry(registry: SchemaRegistry, timestamp: string): Entry {
  const types = registry.attributeTypes;
  return {
    dn: SUBSCHEMA_DN,
    attributes: [
      { name: 'objectClass', values: text(['top', 'subentry', 'subschema', 'extensibleObject']) },
      { name: 'cn', values: text(['Subschema']) },
      { name: 'structuralObjectClass', values: text(['subentry']) },
      { name: 'createTimestamp', values: text([timestamp]) },
      { name: 'modifyTimestamp', values: text([timestamp]) },
      { name: 'ldapSyntaxes', values: text(registry.allSyntaxes.map(formatSyntax)) },
      { name: 'matchingRules', values: text(MATCHING_RULE_LIST.map(formatMatchingRule)) },
      { name: 'matchingRuleUse', values: text(ruleUses(types)) },
      { name: 'attributeTypes', values: text(types.map((type) => formatAttributeType(type.description))) },
      { name: 'objectClasses', values: text(registry.objectClasses.map((objectClass) => formatObjectClass(objectClass.description))) },
    ],
  };
}
