/**
 * Normalized forms: the equality matching rules (RFC 4517/4518, simplified), each turning a value
 * into the string two equal values share, and DNs normalized by them (types by canonical name,
 * values by their rule, AVAs of an RDN sorted). Used for lookup keys, index keys and filters;
 * dn.ts has the DN syntax and imports nothing from here.
 */
import type { AttributeType, Equality } from './schema.js';
import { attributeType } from './schema.js';
import { SchemaMemo } from './schema/memo.js';
import { escapeValue, parseDn, type Ava, type Dn, type Rdn } from './dn.js';

/** Insignificant space handling: trim, and runs of spaces count as one. */
function squeezeSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const PLAIN_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

function caseIgnore(value: Buffer): string {
  return caseIgnoreText(value.toString('utf8'));
}

function caseIgnoreText(text: string): string {
  if (PLAIN_ASCII.test(text)) return text.toLowerCase();
  return squeezeSpaces(text.normalize('NFKC').toLowerCase());
}

/** Canonical integer text: no plus sign, no leading zeros, no negative zero (no BigInt: values may be huge). */
function integer(value: Buffer): string {
  const text = value.toString('utf8').trim();
  const match = /^([+-]?)0*([0-9]+)$/.exec(text);
  if (!match) return text;
  const digits = match[2]!;
  return match[1] === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** DN-syntax values normalized recently: a filter's group (memberOf=G) comes in search after search. */
const dnValues = new SchemaMemo<string>(1024, 512);

function distinguishedName(value: Buffer): string {
  return dnValues.get(value.toString('utf8'), dnValueText);
}

function dnValueText(text: string): string {
  try {
    return normalizeDn(text);
  } catch {
    return caseIgnoreText(text);
  }
}

const RULES: Readonly<Record<Equality, (value: Buffer) => string>> = {
  caseIgnore,
  caseExact: (value) => squeezeSpaces(value.toString('utf8').normalize('NFKC')),
  octet: (value) => value.toString('hex'),
  dn: distinguishedName,
  integer,
  telephone: (value) => value.toString('utf8').replace(/[\s-]/g, '').toLowerCase(),
  generalizedTime: (value) => value.toString('utf8').trim().toUpperCase(),
  objectIdentifier: (value) => value.toString('utf8').trim().toLowerCase(),
};

/** The normalized form of a value under the attribute's equality rule. */
export function normalizeValue(type: AttributeType | string, value: Buffer): string {
  const resolved = typeof type === 'string' ? attributeType(type) : type;
  return RULES[resolved.equality](value);
}

/** Normalized AVAs seen recently: the RDNs near the root repeat in every DN of a subtree. */
const avaCache = new Map<string, string>();

function normalizeAva(ava: Ava): string {
  const cacheKey = `${ava.hex ? '#' : ''}${ava.type}\0${ava.value}`;
  const cached = avaCache.get(cacheKey);
  if (cached !== undefined) return cached;
  if (avaCache.size >= 4096) avaCache.clear();
  const normalized = computeNormalizedAva(ava);
  avaCache.set(cacheKey, normalized);
  return normalized;
}

/** normalizeValue of a value's text; plain ASCII under caseIgnore (most names' values) without the trip through a Buffer. */
function normalizeText(type: AttributeType, text: string): string {
  if (type.equality === 'caseIgnore' && PLAIN_ASCII.test(text)) return text.toLowerCase();
  return RULES[type.equality](Buffer.from(text, 'utf8'));
}

function computeNormalizedAva(ava: Ava): string {
  const type = attributeType(ava.type);
  const value = ava.hex ? ava.value : normalizeText(type, ava.value);
  return `${type.name.toLowerCase()}=${ava.hex ? value : escapeValue(value)}`;
}

/** One RDN in canonical form: types by canonical name, values by their matching rule, AVAs sorted. */
export function normalizeRdn(rdn: Rdn): string {
  return joinedAvas(rdn, normalizeAva);
}

/**
 * The same without the memo of recent AVAs: for an RDN that is seldom seen twice, such as the
 * first RDN of one of a million bind names (its parent's RDNs are the ones that repeat).
 */
export function normalizeLeafRdn(rdn: Rdn): string {
  return joinedAvas(rdn, computeNormalizedAva);
}

/** An RDN's AVAs, each normalized, sorted and joined by '+' (one AVA as it is). */
function joinedAvas(rdn: Rdn, normalize: (ava: Ava) => string): string {
  return rdn.length === 1 ? normalize(rdn[0]!) : rdn.map(normalize).sort().join('+');
}

export function normalizeDn(dn: Dn | string): string {
  const parsed = typeof dn === 'string' ? parseDn(dn) : dn;
  return parsed.map(normalizeRdn).join(',');
}
