/** A directory entry: its DN as written and its attributes, values as raw octets. */
import { attributeKey, typeKey } from './schema.js';

export interface Attribute {
  /** The description as written, options included ('cn', 'cn;lang-en'). */
  readonly name: string;
  readonly values: readonly Buffer[];
}

export interface Entry {
  readonly dn: string;
  readonly attributes: readonly Attribute[];
}

/** Values of every attribute of this type (any options, any alias): `values(e, 'commonName')`. */
export function values(entry: Entry, description: string): Buffer[] {
  const key = typeKey(description);
  const found: Buffer[] = [];
  for (const attribute of entry.attributes) {
    if (typeKey(attribute.name) === key) for (const value of attribute.values) found.push(value);
  }
  return found;
}

/** The attribute with exactly this description (type and options), if present. */
export function findAttribute(entry: Entry, description: string): Attribute | undefined {
  const key = attributeKey(description);
  return entry.attributes.find((attribute) => attributeKey(attribute.name) === key);
}

export function hasAttribute(entry: Entry, description: string): boolean {
  return values(entry, description).length > 0;
}

/** Merges repeated lines of one attribute description ('cn: a', 'cn: b') into one attribute. */
export function groupAttributes(pairs: Iterable<{ readonly name: string; readonly value: Buffer }>): Attribute[] {
  const byKey = new Map<string, { name: string; values: Buffer[] }>();
  for (const { name, value } of pairs) {
    const key = attributeKey(name);
    const existing = byKey.get(key);
    if (existing) existing.values.push(value);
    else byKey.set(key, { name, values: [value] });
  }
  return [...byKey.values()];
}

/** The attributes with each description once: one named twice (in any case) has its values merged. */
export function mergedAttributes(attributes: readonly Attribute[]): Attribute[] {
  return groupAttributes(attributes.flatMap(({ name, values }) => values.map((value) => ({ name, value }))));
}

/** A copy with the attribute of this description replaced (or added, or removed when no values). */
export function withAttribute(entry: Entry, name: string, newValues: readonly Buffer[]): Entry {
  const key = attributeKey(name);
  const others = entry.attributes.filter((attribute) => attributeKey(attribute.name) !== key);
  const existing = entry.attributes.find((attribute) => attributeKey(attribute.name) === key);
  const attributes = newValues.length === 0 ? others : [...others, { name: existing?.name ?? name, values: newValues }];
  return { dn: entry.dn, attributes };
}
