/**
 * userPassword on the way in: plain values are hashed with the chosen scheme, values already
 * in a known `{SCHEME}` are kept as they are, an unknown `{SCHEME}` is an error.
 */
import type { SchemeParams } from '../../schemes/scheme.js';
import type { SchemeRegistry } from '../password/index.js';
import type { Attribute, Entry } from '../store/entry.js';
import { typeKey } from '../store/schema.js';

const PREFIX = /^\{([^}]*)\}/;

export interface HashPolicy {
  readonly registry: SchemeRegistry;
  /** The scheme plain values are hashed with. */
  readonly scheme: string;
  readonly params?: SchemeParams;
}

async function storedValue(value: Buffer, policy: HashPolicy): Promise<Buffer> {
  const prefix = PREFIX.exec(value.toString('utf8'));
  if (prefix) {
    if (policy.registry.find(prefix[1]!)) return value;
    throw new Error(`userPassword uses an unknown password scheme {${prefix[1]}}`);
  }
  return Buffer.from(await policy.registry.encode(policy.scheme, value, policy.params), 'utf8');
}

function hashAttribute(attribute: Attribute, policy: HashPolicy): Attribute | Promise<Attribute> {
  if (typeKey(attribute.name) !== 'userpassword') return attribute;
  return hashValues(attribute, policy);
}

async function hashValues(attribute: Attribute, policy: HashPolicy): Promise<Attribute> {
  const values = await Promise.all(attribute.values.map((value) => storedValue(value, policy)));
  return { name: attribute.name, values };
}

export async function hashPasswords(entry: Entry, policy: HashPolicy): Promise<Entry> {
  if (!entry.attributes.some((attribute) => typeKey(attribute.name) === 'userpassword')) return entry;
  const attributes = await Promise.all(entry.attributes.map((attribute) => hashAttribute(attribute, policy)));
  return { dn: entry.dn, attributes };
}
