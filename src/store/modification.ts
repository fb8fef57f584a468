/**
 * What a write does to an entry in memory, with the result codes of RFC 4511 4.6 and RFC 4525
 * (increment), worded as OpenLDAP words them. Pure functions: they return a new entry or throw a
 * DirectoryError, and never touch the database.
 */
import { formatDn, type Ava, type Dn, type Rdn } from './dn.js';
import { findAttribute, withAttribute, type Entry } from './entry.js';
import { DirectoryError } from './errors.js';
import { normalizeValue } from './normalize.js';
import { attributeType } from './schema.js';
import { checkValues, hasRdnValue, isInteger } from './validate.js';
import { WorkingEntry } from './working-entry.js';

export interface Modification {
  readonly op: 'add' | 'delete' | 'replace' | 'increment';
  /** The attribute description; options make a separate attribute ('cn;lang-en' is not 'cn'). */
  readonly attribute: string;
  readonly values: readonly Buffer[];
}

/**
 * Applies the modifications in order; all of them or none (the caller writes only the result).
 * One working copy of the entry goes through every change (working-entry.ts): linear in the
 * changes and values, so 10,000 one-value changes cost no more than one change of 10,000 values.
 */
export function applyModifications(entry: Entry, modifications: readonly Modification[]): Entry {
  const working = WorkingEntry.of(entry);
  for (const modification of modifications) applyOne(working, modification);
  return working.toEntry();
}

function applyOne(entry: WorkingEntry, modification: Modification): void {
  switch (modification.op) {
    case 'add': addValues(entry, modification); break;
    case 'delete': deleteValues(entry, modification); break;
    case 'replace': replaceValues(entry, modification); break;
    case 'increment': increment(entry, modification); break;
  }
}

const normalizer = (name: string) => {
  const type = attributeType(name);
  return (value: Buffer) => normalizeValue(type, value);
};

function addValues(entry: WorkingEntry, { attribute: name, values }: Modification): void {
  if (values.length === 0) throw new DirectoryError('protocolError', `modify/add: ${name}: no values given`);
  checkValues(name, values);
  const attribute = entry.find(name);
  if (!attribute) {
    entry.replace(name, values);
    return;
  }
  const normalize = normalizer(name);
  const positions = WorkingEntry.positionsOf(attribute, normalize);
  const keys = values.map(normalize);
  const index = keys.findIndex((key) => (positions.get(key)?.length ?? 0) > 0);
  if (index !== -1) throw new DirectoryError('attributeOrValueExists', `modify/add: ${name}: value #${index} already exists`);
  keys.forEach((key, i) => {
    const position = attribute.values.push(values[i]!) - 1;
    const list = positions.get(key);
    if (list) list.push(position);
    else positions.set(key, [position]);
  });
  attribute.live += values.length;
  entry.touched(name, attribute);
}

/** Deleting n of m values costs O(n) once the positions by value are known (O(m), once per modify). */
function deleteValues(entry: WorkingEntry, { attribute: name, values }: Modification): void {
  const attribute = entry.find(name);
  if (!attribute) throw new DirectoryError('noSuchAttribute', `modify/delete: ${name}: no such attribute`);
  if (values.length === 0) {
    entry.replace(name, []);
    return;
  }
  const normalize = normalizer(name);
  const positions = WorkingEntry.positionsOf(attribute, normalize);
  for (const value of values) {
    const index = positions.get(normalize(value))?.pop();
    if (index === undefined) throw new DirectoryError('noSuchAttribute', `modify/delete: ${name}: no such value`);
    attribute.values[index] = undefined;
    attribute.live -= 1;
  }
  entry.touched(name, attribute);
}

function replaceValues(entry: WorkingEntry, { attribute: name, values }: Modification): void {
  checkValues(name, values);
  entry.replace(name, values);
}

/** RFC 4525: one INTEGER attribute, one integer to add to each of its values. */
function increment(entry: WorkingEntry, { attribute: name, values }: Modification): void {
  if (values.length !== 1) throw new DirectoryError('protocolError', 'modify/increment operation requires single value');
  if (attributeType(name).equality !== 'integer') {
    throw new DirectoryError('constraintViolation', `${name}: attribute syntax inappropriate for increment`);
  }
  const delta = values[0]!.toString('utf8');
  if (!isInteger(delta)) throw new DirectoryError('invalidAttributeSyntax', `${name}: value #0 invalid per syntax`);
  const attribute = entry.find(name);
  if (!attribute) throw new DirectoryError('noSuchAttribute', `modify/increment: ${name}: no such attribute`);
  const sums = WorkingEntry.valuesOf(attribute).map((value) => {
    const text = value.toString('utf8');
    if (!isInteger(text)) throw new DirectoryError('constraintViolation', `modify/increment: ${name}: a stored value is not an integer`);
    return Buffer.from((BigInt(text) + BigInt(delta)).toString());
  });
  entry.replace(name, sums);
}

/** The entry with the values its RDN names (RFC 4511 4.7: the RDN's values are part of the entry). */
export function withRdnValues(entry: Entry, rdn: Rdn): Entry {
  let result = entry;
  for (const ava of rdn) {
    if (hasRdnValue(result, ava)) continue;
    const existing = findAttribute(result, ava.type)?.values ?? [];
    result = withAttribute(result, ava.type, [...existing, Buffer.from(ava.value, 'utf8')]);
  }
  return result;
}

/** Removes one old RDN value (deleteoldrdn); the new RDN's values are added back after. */
function withoutRdnValue(entry: Entry, ava: Ava): Entry {
  const attribute = findAttribute(entry, ava.type);
  if (ava.hex || !attribute) return entry;
  const normalize = normalizer(ava.type);
  const wanted = normalize(Buffer.from(ava.value, 'utf8'));
  return withAttribute(entry, attribute.name, attribute.values.filter((value) => normalize(value) !== wanted));
}

/** The entry under its new DN (RFC 4511 4.9): new RDN values added, old ones removed if asked. */
export function renamed(entry: Entry, oldDn: Dn, newDn: Dn, deleteOldRdn: boolean): Entry {
  const newRdn = newDn[0]!;
  let result: Entry = { dn: formatDn(newDn), attributes: entry.attributes };
  if (deleteOldRdn) for (const ava of oldDn[0]!) result = withoutRdnValue(result, ava);
  return withRdnValues(result, newRdn);
}
