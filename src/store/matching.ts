/**
 * Equality matching rules (RFC 4517/4518, simplified): each turns a value into the string two
 * equal values share. Used for DN normalization, index keys and, later, filters.
 */
import type { AttributeType, Equality } from './schema.js';
import { attributeType } from './schema.js';
import { normalizeDn } from './dn.js';

/** Insignificant space handling: trim, and runs of spaces count as one. */
function squeezeSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const PLAIN_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

function caseIgnore(value: Buffer): string {
  const text = value.toString('utf8');
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

function distinguishedName(value: Buffer): string {
  try {
    return normalizeDn(value.toString('utf8'));
  } catch {
    return caseIgnore(value);
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
