/** The structural rules an entry must meet before it is stored, and the rules for what clients write. */
import type { Ava, Dn } from './dn.js';
import { values, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { normalizeValue } from './normalize.js';
import { attributeType, validDescription, type AttributeType } from './schema.js';
import { isGeneralizedTime } from './time.js';

/** Limits of the stored record format (codec.ts): far above any real entry. */
const MAX_ATTRIBUTES = 65_535;
const MAX_NAME_BYTES = 1024;

/** INTEGER syntax (RFC 4517 3.3.16), with a sane length: what increment can add to. */
const INTEGER = /^-?(?:0|[1-9][0-9]{0,99})$/;

function checkShape(entry: Entry): void {
  if (entry.attributes.length > MAX_ATTRIBUTES) {
    throw new DirectoryError('constraintViolation', `entry ${entry.dn} has more than ${MAX_ATTRIBUTES} attributes`);
  }
  const long = entry.attributes.find((attribute) => Buffer.byteLength(attribute.name) > MAX_NAME_BYTES);
  if (long) throw new DirectoryError('constraintViolation', `an attribute name longer than ${MAX_NAME_BYTES} bytes in ${entry.dn}`);
}

function checkObjectClass(entry: Entry): void {
  if (values(entry, 'objectClass').length === 0) {
    throw new DirectoryError('objectClassViolation', `entry ${entry.dn} has no objectClass`);
  }
}

/** Does the entry hold this RDN value (by the attribute's matching rule)? A '#hex' value counts as held. */
export function hasRdnValue(entry: Entry, ava: Ava): boolean {
  if (ava.hex) return true;
  const type = attributeType(ava.type);
  const wanted = normalizeValue(type, Buffer.from(ava.value, 'utf8'));
  return values(entry, ava.type).some((value) => normalizeValue(type, value) === wanted);
}

/** Every entry needs an objectClass, and the values its RDN names. */
export function checkEntry(entry: Entry, dn: Dn): void {
  if (dn.length === 0) throw new DirectoryError('unwillingToPerform', 'the root DSE cannot be added');
  checkShape(entry);
  checkObjectClass(entry);
  const missing = dn[0]!.find((ava) => !hasRdnValue(entry, ava));
  if (missing) throw new DirectoryError('namingViolation', `entry ${entry.dn} lacks its RDN value ${missing.type}=${missing.value}`);
}

/** After a modify: an objectClass is left (objectClassViolation) and no RDN value was removed (notAllowedOnRDN). */
export function checkModifiedEntry(entry: Entry, dn: Dn): void {
  checkShape(entry);
  checkObjectClass(entry);
  const missing = dn[0]!.find((ava) => !hasRdnValue(entry, ava));
  if (missing) throw new DirectoryError('notAllowedOnRdn', `${missing.type}: the RDN value ${missing.value} cannot be removed (rename the entry instead)`);
}

/** Whether a client may write the type: a user attribute, or an operational one the admin may write. */
const clientWritable = (type: AttributeType): boolean => !type.operational || type.adminWritable === true;

/**
 * An attribute a client may write: a well-formed description (else undefinedAttributeType) and
 * not one the server maintains (entryUUID, timestamps, ...: constraintViolation, as OpenLDAP).
 * The lockout records (pwdAccountLockedTime, pwdFailureTime) are operational but writable, so
 * that the admin can unlock an account (access control keeps everyone else out).
 */
export function checkWritableAttribute(name: string): void {
  if (!validDescription(name)) throw new DirectoryError('undefinedAttributeType', `${name.slice(0, 100)}: attribute description invalid`);
  if (!clientWritable(attributeType(name))) throw new DirectoryError('constraintViolation', `${name}: no user modification allowed`);
}

/**
 * The syntax check of the values a client writes, where there is one: INTEGER attributes
 * (uidNumber, gidNumber) take integers; writable GeneralizedTime attributes (pwdAccountLockedTime,
 * pwdFailureTime) take times as RFC 4517 spells them, zone included (OpenLDAP's `000001010000Z`
 * is one), so that a mistyped lock or unlock is refused rather than stored.
 */
function syntaxError(type: AttributeType, name: string, value: Buffer, index: number): DirectoryError | undefined {
  if (type.equality === 'integer' && !INTEGER.test(value.toString('utf8'))) {
    return new DirectoryError('invalidAttributeSyntax', `${name}: value #${index} invalid per syntax`);
  }
  if (type.equality === 'generalizedTime' && clientWritable(type) && !isGeneralizedTime(value)) {
    return new DirectoryError('invalidAttributeSyntax',
      `${name}: value #${index} invalid per syntax (a GeneralizedTime such as 20240131235959Z, or 000001010000Z)`);
  }
  return undefined;
}

/**
 * Values a client writes to one attribute: each valid per its syntax where one is checked
 * (invalidAttributeSyntax: INTEGER and writable GeneralizedTime attributes), no value twice
 * (attributeOrValueExists).
 */
export function checkValues(name: string, written: readonly Buffer[]): void {
  const type = attributeType(name);
  written.forEach((value, index) => {
    const invalid = syntaxError(type, name, value, index);
    if (invalid) throw invalid;
  });
  checkDistinct(name, written);
}

/** No value given twice (as the attribute's equality rule compares them): attributeOrValueExists, as an add answers. */
export function checkDistinct(name: string, written: readonly Buffer[]): void {
  if (written.length < 2) return;
  const type = attributeType(name);
  const seen = new Set<string>();
  written.forEach((value, index) => {
    const normalized = normalizeValue(type, value);
    if (seen.has(normalized)) throw new DirectoryError('attributeOrValueExists', `${name}: value #${index} provided more than once`);
    seen.add(normalized);
  });
}

export function isInteger(text: string): boolean {
  return INTEGER.test(text);
}
