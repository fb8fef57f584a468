/**
 * Descriptions written back in RFC 4512's form, for the subschema entry (cn=Subschema): what a
 * client such as ldap3 or python-ldap parses. The same fields a definition was read with, in
 * the RFC's order, X- extensions last.
 */
import type { AttributeTypeDescription, ObjectClassDescription } from './parse.js';
import type { MatchingRule } from './matching-rules.js';
import type { Syntax } from './syntaxes.js';
import type { SchemaAttributeType } from './registry.js';

const quote = (text: string): string => `'${text.replace(/\\/g, '\\5C').replace(/'/g, '\\27')}'`;

function names(list: readonly string[]): string[] {
  if (list.length === 0) return [];
  return ['NAME', list.length === 1 ? quote(list[0]!) : `( ${list.map(quote).join(' ')} )`];
}

const oids = (list: readonly string[]): string => (list.length === 1 ? list[0]! : `( ${list.join(' $ ')} )`);

function extensions(values: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(values).flatMap(([key, list]) => [key, list.length === 1 ? quote(list[0]!) : `( ${list.map(quote).join(' ')} )`]);
}

const optional = (keyword: string, value: string | undefined): string[] => (value === undefined ? [] : [keyword, value]);
const flag = (keyword: string, on: boolean): string[] => (on ? [keyword] : []);

export function formatAttributeType(type: AttributeTypeDescription): string {
  const syntax = type.syntax === undefined ? undefined : `${type.syntax}${type.syntaxLength === undefined ? '' : `{${type.syntaxLength}}`}`;
  const parts = [
    type.oid, ...names(type.names), ...optional('DESC', type.description === undefined ? undefined : quote(type.description)),
    ...flag('OBSOLETE', type.obsolete), ...optional('SUP', type.sup), ...optional('EQUALITY', type.equality),
    ...optional('ORDERING', type.ordering), ...optional('SUBSTR', type.substr), ...optional('SYNTAX', syntax),
    ...flag('SINGLE-VALUE', type.singleValue), ...flag('COLLECTIVE', type.collective), ...flag('NO-USER-MODIFICATION', type.noUserModification),
    ...(type.usage === 'userApplications' ? [] : ['USAGE', type.usage]), ...extensions(type.extensions),
  ];
  return `( ${parts.join(' ')} )`;
}

export function formatObjectClass(objectClass: ObjectClassDescription): string {
  const parts = [
    objectClass.oid, ...names(objectClass.names),
    ...optional('DESC', objectClass.description === undefined ? undefined : quote(objectClass.description)),
    ...flag('OBSOLETE', objectClass.obsolete), ...(objectClass.sup.length === 0 ? [] : ['SUP', oids(objectClass.sup)]), objectClass.kind,
    ...(objectClass.must.length === 0 ? [] : ['MUST', oids(objectClass.must)]), ...(objectClass.may.length === 0 ? [] : ['MAY', oids(objectClass.may)]),
    ...extensions(objectClass.extensions),
  ];
  return `( ${parts.join(' ')} )`;
}

/** A syntax; binary ones are marked X-NOT-HUMAN-READABLE, as OpenLDAP publishes them. */
export const formatSyntax = (syntax: Syntax): string =>
  `( ${syntax.oid} DESC ${quote(syntax.description)}${syntax.binary ? " X-NOT-HUMAN-READABLE 'TRUE'" : ''} )`;

export const formatMatchingRule = (rule: MatchingRule): string => `( ${rule.oid} NAME ${quote(rule.name)} SYNTAX ${rule.syntax} )`;

/** RFC 4512 4.1.4: the rule and the types it applies to. */
export const formatMatchingRuleUse = (rule: MatchingRule, types: readonly SchemaAttributeType[]): string =>
  `( ${rule.oid} NAME ${quote(rule.name)} APPLIES ${oids(types.map((type) => type.name))} )`;
