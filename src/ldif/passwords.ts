/**
 * userPassword on the way in: plain values are hashed with the chosen scheme, values already
 * in a known `{SCHEME}` are kept as they are, an unknown `{SCHEME}` is an error.
 */
import type { SchemeParams } from '../../schemes/scheme.js';
import type { SchemeRegistry } from '../password/index.js';
import type { Attribute, Entry } from '../store/entry.js';
import { typeKey } from '../store/schema.js';


export interface HashPolicy {
  readonly registry: SchemeRegistry;
  /** The scheme plain values are hashed with. */
  readonly scheme: string;
  readonly params?: SchemeParams;
}

/** True when the value is already a hash in a known scheme; throws for an unknown scheme. */
function isHashed(value: Buffer, policy: HashPolicy): boolean {
  const found = policy.registry.classify(value.toString('utf8'));
  if (found.kind === 'unknown') throw new Error(`userPassword uses an unknown password scheme {${found.name}}`);
  return found.kind === 'hashed';
}

async function hashValue(value: Buffer, policy: HashPolicy): Promise<Buffer> {
  return Buffer.from(await policy.registry.encode(policy.scheme, value, policy.params), 'utf8');
}

async function hashAttribute(attribute: Attribute, policy: HashPolicy): Promise<Attribute> {
  if (typeKey(attribute.name) !== 'userpassword') return attribute;
  const values = await Promise.all(attribute.values.map((value) => (isHashed(value, policy) ? value : hashValue(value, policy))));
  return { name: attribute.name, values };
}

function needsHashing(entry: Entry, policy: HashPolicy): boolean {
  return entry.attributes.some((attribute) => typeKey(attribute.name) === 'userpassword'
    && attribute.values.some((value) => !isHashed(value, policy)));
}

/**
 * The entry with plain userPassword values hashed. Synchronous when there is nothing to hash
 * (the common case for a pre-hashed import), so a batch of such entries makes no promises.
 */
export function hashPasswords(entry: Entry, policy: HashPolicy): Entry | Promise<Entry> {
  if (!needsHashing(entry, policy)) return entry;
  return Promise.all(entry.attributes.map((attribute) => hashAttribute(attribute, policy)))
    .then((attributes) => ({ dn: entry.dn, attributes }));
}
