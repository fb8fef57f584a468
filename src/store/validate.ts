/** The structural rules an entry must meet before it is stored. */
import type { Dn } from './dn.js';
import { values, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { normalizeValue } from './matching.js';
import { attributeType } from './schema.js';

/** Limits of the stored record format (codec.ts): far above any real entry. */
const MAX_ATTRIBUTES = 65_535;
const MAX_NAME_BYTES = 1024;

function checkShape(entry: Entry): void {
  if (entry.attributes.length > MAX_ATTRIBUTES) {
    throw new DirectoryError('constraintViolation', `entry ${entry.dn} has more than ${MAX_ATTRIBUTES} attributes`);
  }
  const long = entry.attributes.find((attribute) => Buffer.byteLength(attribute.name) > MAX_NAME_BYTES);
  if (long) throw new DirectoryError('constraintViolation', `an attribute name longer than ${MAX_NAME_BYTES} bytes in ${entry.dn}`);
}

/** Every entry needs an objectClass, and the values its RDN names. */
export function checkEntry(entry: Entry, dn: Dn): void {
  if (dn.length === 0) throw new DirectoryError('unwillingToPerform', 'the root DSE cannot be added');
  checkShape(entry);
  if (values(entry, 'objectClass').length === 0) {
    throw new DirectoryError('objectClassViolation', `entry ${entry.dn} has no objectClass`);
  }
  for (const ava of dn[0]!) {
    const type = attributeType(ava.type);
    const wanted = normalizeValue(type, Buffer.from(ava.value, 'utf8'));
    const present = values(entry, ava.type).some((value) => normalizeValue(type, value) === wanted);
    if (!present && !ava.hex) {
      throw new DirectoryError('namingViolation', `entry ${entry.dn} lacks its RDN value ${ava.type}=${ava.value}`);
    }
  }
}
