/**
 * What the store needs to know about attribute types: canonical names and aliases, the
 * equality matching rule (for DN normalization, indexes and filters), and which ones are
 * operational. A small built-in table of the core, cosine, inetOrgPerson and nis schemas;
 * anything else is a user attribute compared case-insensitively (caseIgnoreMatch).
 */

export type Equality =
  | 'caseIgnore' | 'caseExact' | 'octet' | 'dn' | 'integer' | 'telephone' | 'generalizedTime' | 'objectIdentifier';

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

interface Definition {
  readonly names: readonly string[];
  readonly oid?: string;
  readonly equality?: Equality;
  readonly operational?: boolean;
  readonly adminWritable?: boolean;
  readonly policyState?: boolean;
}

const DEFINITIONS: readonly Definition[] = [
  { names: ['objectClass'], oid: '2.5.4.0', equality: 'objectIdentifier' },
  { names: ['cn', 'commonName'], oid: '2.5.4.3' },
  { names: ['sn', 'surname'], oid: '2.5.4.4' },
  { names: ['serialNumber'], oid: '2.5.4.5' },
  { names: ['c', 'countryName'], oid: '2.5.4.6' },
  { names: ['l', 'localityName'], oid: '2.5.4.7' },
  { names: ['st', 'stateOrProvinceName'], oid: '2.5.4.8' },
  { names: ['street', 'streetAddress'], oid: '2.5.4.9' },
  { names: ['o', 'organizationName'], oid: '2.5.4.10' },
  { names: ['ou', 'organizationalUnitName'], oid: '2.5.4.11' },
  { names: ['title'], oid: '2.5.4.12' },
  { names: ['description'], oid: '2.5.4.13' },
  { names: ['postalAddress'], oid: '2.5.4.16' },
  { names: ['postalCode'], oid: '2.5.4.17' },
  { names: ['telephoneNumber'], oid: '2.5.4.20', equality: 'telephone' },
  { names: ['facsimileTelephoneNumber', 'fax'], oid: '2.5.4.23', equality: 'telephone' },
  { names: ['member'], oid: '2.5.4.31', equality: 'dn' },
  { names: ['owner'], oid: '2.5.4.32', equality: 'dn' },
  { names: ['roleOccupant'], oid: '2.5.4.33', equality: 'dn' },
  { names: ['seeAlso'], oid: '2.5.4.34', equality: 'dn' },
  { names: ['userPassword'], oid: '2.5.4.35', equality: 'octet' },
  { names: ['userCertificate'], oid: '2.5.4.36', equality: 'octet' },
  { names: ['name'], oid: '2.5.4.41' },
  { names: ['givenName', 'gn'], oid: '2.5.4.42' },
  { names: ['initials'], oid: '2.5.4.43' },
  { names: ['uniqueMember'], oid: '2.5.4.50', equality: 'dn' },
  { names: ['displayName'], oid: '2.16.840.1.113730.3.1.241' },
  { names: ['employeeNumber'], oid: '2.16.840.1.113730.3.1.3' },
  { names: ['employeeType'], oid: '2.16.840.1.113730.3.1.4' },
  { names: ['departmentNumber'], oid: '2.16.840.1.113730.3.1.2' },
  { names: ['preferredLanguage'], oid: '2.16.840.1.113730.3.1.39' },
  { names: ['jpegPhoto'], oid: '0.9.2342.19200300.100.1.60', equality: 'octet' },
  { names: ['uid', 'userid'], oid: '0.9.2342.19200300.100.1.1' },
  { names: ['mail', 'rfc822Mailbox'], oid: '0.9.2342.19200300.100.1.3' },
  { names: ['dc', 'domainComponent'], oid: '0.9.2342.19200300.100.1.25' },
  { names: ['homePhone', 'homeTelephoneNumber'], oid: '0.9.2342.19200300.100.1.20', equality: 'telephone' },
  { names: ['mobile', 'mobileTelephoneNumber'], oid: '0.9.2342.19200300.100.1.41', equality: 'telephone' },
  { names: ['pager', 'pagerTelephoneNumber'], oid: '0.9.2342.19200300.100.1.42', equality: 'telephone' },
  { names: ['manager'], oid: '0.9.2342.19200300.100.1.10', equality: 'dn' },
  { names: ['secretary'], oid: '0.9.2342.19200300.100.1.21', equality: 'dn' },
  { names: ['labeledURI'], oid: '1.3.6.1.4.1.250.1.57', equality: 'caseExact' },
  { names: ['uidNumber'], oid: '1.3.6.1.1.1.1.0', equality: 'integer' },
  { names: ['gidNumber'], oid: '1.3.6.1.1.1.1.1', equality: 'integer' },
  { names: ['homeDirectory'], oid: '1.3.6.1.1.1.1.3', equality: 'caseExact' },
  { names: ['loginShell'], oid: '1.3.6.1.1.1.1.4', equality: 'caseExact' },
  { names: ['memberUid'], oid: '1.3.6.1.1.1.1.12', equality: 'caseExact' },
  { names: ['createTimestamp'], oid: '2.5.18.1', equality: 'generalizedTime', operational: true },
  { names: ['modifyTimestamp'], oid: '2.5.18.2', equality: 'generalizedTime', operational: true },
  { names: ['creatorsName'], oid: '2.5.18.3', equality: 'dn', operational: true },
  { names: ['modifiersName'], oid: '2.5.18.4', equality: 'dn', operational: true },
  { names: ['subschemaSubentry'], oid: '2.5.18.10', equality: 'dn', operational: true },
  { names: ['hasSubordinates'], oid: '2.5.18.9', operational: true },
  { names: ['structuralObjectClass'], oid: '2.5.21.9', equality: 'objectIdentifier', operational: true },
  { names: ['entryUUID'], oid: '1.3.6.1.1.16.4', equality: 'caseIgnore', operational: true },
  { names: ['entryCSN'], oid: '1.3.6.1.4.1.4203.666.1.7', equality: 'caseExact', operational: true },
  { names: ['entryDN'], oid: '1.3.6.1.1.20', equality: 'dn', operational: true },
  { names: ['contextCSN'], oid: '1.3.6.1.4.1.4203.666.1.25', equality: 'caseExact', operational: true },
  // ppolicy (draft-behera-ldap-password-policy): every pwd* type here is policy state.
  { names: ['pwdChangedTime'], oid: '1.3.6.1.4.1.42.2.27.8.1.16', equality: 'generalizedTime', operational: true, policyState: true },
  {
    names: ['pwdAccountLockedTime'], oid: '1.3.6.1.4.1.42.2.27.8.1.17', equality: 'generalizedTime',
    operational: true, adminWritable: true, policyState: true,
  },
  {
    names: ['pwdFailureTime'], oid: '1.3.6.1.4.1.42.2.27.8.1.19', equality: 'generalizedTime',
    operational: true, adminWritable: true, policyState: true,
  },
];

const BY_NAME = new Map<string, AttributeType>();
/** Every way to name a known type, lower-cased: its names, its OID, 'oid.' and its OID. */
const NAMES = new Map<AttributeType, readonly string[]>();
for (const definition of DEFINITIONS) {
  const type: AttributeType = {
    name: definition.names[0]!,
    key: definition.names[0]!.toLowerCase(),
    equality: definition.equality ?? 'caseIgnore',
    operational: definition.operational ?? false,
    ...(definition.adminWritable && { adminWritable: true }),
    ...(definition.policyState && { policyState: true }),
  };
  for (const name of definition.names) BY_NAME.set(name.toLowerCase(), type);
  if (definition.oid) BY_NAME.set(definition.oid, type);
  NAMES.set(type, [...definition.names.map((name) => name.toLowerCase()), ...(definition.oid ? [definition.oid, `oid.${definition.oid}`] : [])]);
}

/** RFC 4512 2.5: a name or OID (or 'OID.'-prefixed OID), then options. */
const DESCRIPTION = /^(?:oid\.)?(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*)(?:;[A-Za-z0-9-]+)*$/i;

/** Whether an attribute description is well formed ('cn', 'cn;lang-en', '2.5.4.3'). */
export function validDescription(description: string): boolean {
  return DESCRIPTION.test(description);
}

/** The attribute type part of a description: 'cn;lang-en' -> 'cn'; 'OID.2.5.4.3' -> '2.5.4.3'. */
function baseName(description: string): string {
  const semicolon = description.indexOf(';');
  const type = semicolon === -1 ? description : description.slice(0, semicolon);
  return /^oid\./i.test(type) ? type.slice(4) : type;
}

/** Descriptions seen so far (bounded): the same few dozen names come back for every entry. */
const CACHE_LIMIT = 10_000;
const typeCache = new Map<string, AttributeType>();
const keyCache = new Map<string, string>();

/** Longer descriptions are computed each time: a client must not fill the caches with junk names. */
const CACHED_LENGTH_LIMIT = 128;

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (key.length > CACHED_LENGTH_LIMIT) return value;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/** The attribute type for a name, alias, OID or description with options. */
export function attributeType(description: string): AttributeType {
  const cached = typeCache.get(description);
  if (cached) return cached;
  const base = baseName(description);
  const known = BY_NAME.get(base.toLowerCase());
  return remember(typeCache, description, known ?? { name: base, key: base.toLowerCase(), equality: 'caseIgnore', operational: false });
}

/**
 * The key an attribute description is compared by: the canonical type name lower-cased
 * ('commonName' and '2.5.4.3' -> 'cn'), followed by its options lower-cased and sorted.
 */
export function attributeKey(description: string): string {
  const cached = keyCache.get(description);
  if (cached !== undefined) return cached;
  const type = attributeType(description).name.toLowerCase();
  const options = description.split(';').slice(1).map((option) => option.toLowerCase()).sort();
  return remember(keyCache, description, options.length === 0 ? type : `${type};${options.join(';')}`);
}

/** Every lower-cased name a description's type can be written as (just its own for an unknown type). */
export function namesOf(description: string): readonly string[] {
  const type = attributeType(description);
  return NAMES.get(type) ?? [type.key];
}

/** The canonical type name only, lower-cased: what indexes and `get` use. */
export function typeKey(description: string): string {
  return attributeType(description).key;
}
