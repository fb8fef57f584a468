/**
 * What the store asks of the schema: an attribute type's canonical name and aliases, its
 * equality matching rule (for DN normalization, indexes and filters), and whether it is
 * operational. Answered from the schema in force (schema/installed.ts: the built-in schemas and
 * the --schema files), plus leveldap's own table of which operational types the admin may write
 * and which are password-policy state. A type no schema defines is a user attribute compared
 * case-insensitively (caseIgnoreMatch), so that data written before a schema change still reads.
 */
import type { Equality } from './schema/equality.js';
import { currentSchema } from './schema/installed.js';
import { SchemaMemo } from './schema/memo.js';

export type { Equality } from './schema/equality.js';

export interface AttributeType {
  /** The name as the schema spells it, e.g. 'objectClass'. */
  readonly name: string;
  readonly equality: Equality;
  /** Maintained by the server; returned for '+' rather than '*'. */
  readonly operational: boolean;
  /** Operational, yet the admin may write it (ppolicy's pwdAccountLockedTime and pwdFailureTime). */
  readonly adminWritable?: boolean;
  /**
   * An account's password-policy state (ppolicy's pwd* operational attributes: when the password
   * changed, the lock, the failures): read only by the admin and the entry itself (access.ts).
   */
  readonly policyState?: boolean;
  /** The name lower-cased: how indexes and lookups refer to the type. */
  readonly key: string;
}

/**
 * The operational types leveldap treats specially, by key: policy as a literal table. Every pwd*
 * type of ppolicy is an account's policy state; the admin may write the lock and the failures
 * (to unlock an account).
 */
const SPECIAL: Readonly<Record<string, Pick<AttributeType, 'adminWritable' | 'policyState'>>> = {
  pwdchangedtime: { policyState: true },
  pwdaccountlockedtime: { adminWritable: true, policyState: true },
  pwdfailuretime: { adminWritable: true, policyState: true },
  pwdhistory: { policyState: true },
  pwdgraceusetime: { policyState: true },
  pwdreset: { policyState: true },
  pwdpolicysubentry: { policyState: true },
};

/** RFC 4512 2.5: a name or OID (or 'OID.'-prefixed OID), then options. */
const DESCRIPTION = /^(?:oid\.)?(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*)(?:;[A-Za-z0-9-]+)*$/i;

/** Whether an attribute description is well formed ('cn', 'cn;lang-en', '2.5.4.3'). */
export function validDescription(description: string): boolean {
  return DESCRIPTION.test(description);
}

/** Whether the schema in force defines the description's type (by any name or OID). */
export function isKnownType(description: string): boolean {
  return currentSchema().attributeType(baseName(description)) !== undefined;
}

/** The attribute type part of a description: 'cn;lang-en' -> 'cn'; 'OID.2.5.4.3' -> '2.5.4.3'. */
function baseName(description: string): string {
  const semicolon = description.indexOf(';');
  const type = semicolon === -1 ? description : description.slice(0, semicolon);
  return /^oid\./i.test(type) ? type.slice(4) : type;
}

/** Descriptions seen so far (bounded): the same few dozen names come back for every entry. */
const CACHE_LIMIT = 10_000;
/** Longer descriptions are computed each time: a client must not fill the caches with junk names. */
const CACHED_LENGTH_LIMIT = 128;
const types = new SchemaMemo<AttributeType>(CACHE_LIMIT, CACHED_LENGTH_LIMIT);
const keys = new SchemaMemo<string>(CACHE_LIMIT, CACHED_LENGTH_LIMIT);
const names = new SchemaMemo<readonly string[]>(CACHE_LIMIT, CACHED_LENGTH_LIMIT);

function lookUp(base: string): AttributeType {
  const known = currentSchema().attributeType(base);
  if (!known) return { name: base, key: base.toLowerCase(), equality: 'caseIgnore', operational: false };
  return { name: known.name, key: known.key, equality: known.compare, operational: known.operational, ...SPECIAL[known.key] };
}

const lookUpDescription = (description: string): AttributeType => lookUp(baseName(description));

/** The attribute type for a name, alias, OID or description with options. */
export function attributeType(description: string): AttributeType {
  return types.get(description, lookUpDescription);
}

/**
 * The key an attribute description is compared by: the canonical type name lower-cased
 * ('commonName' and '2.5.4.3' -> 'cn'), followed by its options lower-cased and sorted.
 */
export function attributeKey(description: string): string {
  return keys.get(description, keyOf);
}

function keyOf(description: string): string {
  const type = attributeType(description).key;
  const options = description.split(';').slice(1).map((option) => option.toLowerCase()).sort();
  return options.length === 0 ? type : `${type};${options.join(';')}`;
}

/** Every lower-cased name a description's type can be written as: its names, its OID, 'oid.' and its OID (its own for an unknown type). */
export function namesOf(description: string): readonly string[] {
  return names.get(description, spellingsOf);
}

function spellingsOf(description: string): readonly string[] {
  const known = currentSchema().attributeType(baseName(description));
  return known ? [...known.names.map((name) => name.toLowerCase()), known.oid, `oid.${known.oid}`] : [attributeType(description).key];
}

/** The canonical type name only, lower-cased: what indexes and `get` use. */
export function typeKey(description: string): string {
  return attributeType(description).key;
}
