/** The structural rules an entry must meet before it is stored. */
import type { Dn } from './dn.js';
import { values, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { normalizeValue } from './matching.js';
import { attributeType } from './schema.js';

/** Every entry needs an objectClass, and the values its RDN names. */
export function checkEntry(entry: Entry, dn: Dn): void {
  if (dn.length === 0) throw new DirectoryError('unwillingToPerform', 'the root DSE cannot be added');
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
