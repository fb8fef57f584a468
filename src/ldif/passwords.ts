/**
 * userPassword on the way in: plain values are hashed with the chosen scheme, values already
 * in a known `{SCHEME}` are kept as they are, an unknown `{SCHEME}` is an error.
 */
import type { SchemeParams } from '../../schemes/scheme.js';
import type { SchemeRegistry } from '../password/index.js';
import type { Attribute, Entry } from '../store/entry.js';
import { typeKey } from '../store/schema.js';


/** What a userPassword value is (SchemeRegistry.classify; a worker thread classifies by the registry's names). */
export interface PasswordClassifier {
  classify(value: string): { readonly kind: 'plain' | 'hashed' } | { readonly kind: 'unknown'; readonly name: string };
}

export interface HashPolicy {
  readonly registry: SchemeRegistry;
  /** The scheme plain values are hashed with. */
  readonly scheme: string;
  readonly params?: SchemeParams;
}

/** True when the value is already a hash in a known scheme; throws for an unknown scheme. */
function isHashed(value: Buffer, classifier: PasswordClassifier): boolean {
  const found = classifier.classify(value.toString('utf8'));
  if (found.kind === 'unknown') throw new Error(`userPassword uses an unknown password scheme {${found.name}}`);
  return found.kind === 'hashed';
}

async function hashValue(value: Buffer, policy: HashPolicy): Promise<Buffer> {
  return Buffer.from(await policy.registry.encode(policy.scheme, value, policy.params), 'utf8');
}

async function hashAttribute(attribute: Attribute, policy: HashPolicy): Promise<Attribute> {
  if (typeKey(attribute.name) !== 'userpassword') return attribute;
  const values = await Promise.all(attribute.values.map((value) => (isHashed(value, policy.registry) ? value : hashValue(value, policy))));
  return { name: attribute.name, values };
}

/** Whether the entry has a plain userPassword value; throws for a value in an unknown scheme. */
export function needsHashing(entry: Entry, classifier: PasswordClassifier): boolean {
  return entry.attributes.some((attribute) => typeKey(attribute.name) === 'userpassword'
    && attribute.values.some((value) => !isHashed(value, classifier)));
}

/**
 * The entry with plain userPassword values hashed. Synchronous when there is nothing to hash
 * (the common case for a pre-hashed import), so a batch of such entries makes no promises.
 */
export function hashPasswords(entry: Entry, policy: HashPolicy): Entry | Promise<Entry> {
  if (!needsHashing(entry, policy.registry)) return entry;
  return Promise.all(entry.attributes.map((attribute) => hashAttribute(attribute, policy)))
    .then((attributes) => ({ dn: entry.dn, attributes }));
}
