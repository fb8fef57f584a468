/**
 * An entry against the schema, as OpenLDAP's slapd checks it, with its result codes and wording
 * (test/integration/serve-schema-check.test.ts runs the same entries against a real slapd):
 *
 * | problem | code | message |
 * |---|---|---|
 * | no objectClass | 65 | no objectClass attribute |
 * | an unknown object class | 21 | objectClass: value #N invalid per syntax |
 * | an unknown attribute type | 17 | NAME: attribute type undefined |
 * | no structural class, or two chains | 65 | no structural object class provided / invalid structural object class chain (A/B) |
 * | a MUST missing | 65 | object class 'C' requires attribute 'T' |
 * | a type no class allows | 65 | attribute 'T' not allowed |
 * | a second value of a SINGLE-VALUE type | 19 | NAME: multiple values provided |
 * | a value not in its syntax | 21 | NAME: value #N invalid per syntax |
 * | a modify that changes the structural class | 69 | structural object class modification from 'A' to 'B' not allowed |
 *
 * extensibleObject allows any user attribute; operational attributes are the server's and are
 * allowed on any entry. Pure: the registry and the entry in, the first problem out.
 */
import type { Attribute, Entry } from '../entry.js';
import { DirectoryError } from '../errors.js';
import type { SchemaAttributeType, SchemaObjectClass, SchemaRegistry } from './registry.js';

const EXTENSIBLE = 'extensibleobject';

const NONE: ReadonlySet<Attribute> = new Set();

const OID_PREFIX = /^oid\./i;

/** The attribute type part of a description: 'cn;lang-en' -> 'cn', 'OID.2.5.4.3' -> '2.5.4.3'. */
function baseName(description: string): string {
  const semicolon = description.indexOf(';');
  const type = semicolon === -1 ? description : description.slice(0, semicolon);
  return (type.charCodeAt(0) | 0x20) === 0x6f && OID_PREFIX.test(type) ? type.slice(4) : type;
}

/** The classes the entry names (every one known: checked with the values); 65 when it names none. */
function classesOf(entry: Entry, registry: SchemaRegistry): SchemaObjectClass[] {
  const values = entry.attributes.filter((attribute) => baseName(attribute.name).toLowerCase() === 'objectclass').flatMap((attribute) => attribute.values);
  if (values.length === 0) throw new DirectoryError('objectClassViolation', 'no objectClass attribute');
  return values.map((value) => registry.objectClass(value.toString('utf8').trim())!);
}

/** Whether `ancestor` is `objectClass` or one of its superclasses. */
function descendsFrom(objectClass: SchemaObjectClass, ancestor: SchemaObjectClass): boolean {
  return objectClass === ancestor || objectClass.sup.some((parent) => descendsFrom(parent, ancestor));
}

/** The entry's structural class: the most specific of the structural ones, which must form one chain. */
export function structuralClass(classes: readonly SchemaObjectClass[]): SchemaObjectClass {
  const structural = classes.filter((objectClass) => objectClass.kind === 'STRUCTURAL');
  if (structural.length === 0) throw new DirectoryError('objectClassViolation', 'no structural object class provided');
  let most = structural[0]!;
  for (const candidate of structural.slice(1)) {
    if (descendsFrom(candidate, most)) most = candidate;
    else if (!descendsFrom(most, candidate)) {
      throw new DirectoryError('objectClassViolation', `invalid structural object class chain (${most.name}/${candidate.name})`);
    }
  }
  return most;
}

/**
 * Each attribute in order, as slapd checks what a client sends: its type is defined (17), then its
 * values: the syntax of each (21; an objectClass value must name a known class), at most one for a
 * SINGLE-VALUE type (19). Returns the types present. The values of an attribute in `stored` (a
 * modified entry's attributes the change left as they were stored) are not checked again: as in
 * slapd, a modify checks the syntax of the values it writes, and the whole entry's structure.
 */
function checkAttributes(entry: Entry, registry: SchemaRegistry, stored: ReadonlySet<Attribute>): Map<SchemaAttributeType, number> {
  const counts = new Map<SchemaAttributeType, number>();
  for (const attribute of entry.attributes) {
    const type = registry.attributeType(baseName(attribute.name));
    if (!type) throw new DirectoryError('undefinedAttributeType', `${attribute.name}: attribute type undefined`);
    const valid = type.key === 'objectclass' ? (value: Buffer) => registry.objectClass(value.toString('utf8').trim()) !== undefined : type.syntax.check;
    const bad = valid && !stored.has(attribute) ? attribute.values.findIndex((value) => !valid(value)) : -1;
    if (bad !== -1) throw new DirectoryError('invalidAttributeSyntax', `${attribute.name}: value #${bad} invalid per syntax`);
    const count = (counts.get(type) ?? 0) + attribute.values.length;
    if (type.singleValue && count > 1) throw new DirectoryError('constraintViolation', `${attribute.name}: multiple values provided`);
    counts.set(type, count);
  }
  return counts;
}

function checkContent(classes: readonly SchemaObjectClass[], types: ReadonlyMap<SchemaAttributeType, unknown>): void {
  const present = new Set([...types.keys()].map((type) => type.key));
  for (const objectClass of classes) {
    for (const key of objectClass.must) {
      if (!present.has(key)) throw new DirectoryError('objectClassViolation', `object class '${objectClass.name}' requires attribute '${key}'`);
    }
  }
  if (classes.some((objectClass) => objectClass.key === EXTENSIBLE)) return;
  for (const type of types.keys()) {
    if (type.operational) continue;
    const allowed = classes.some((objectClass) => objectClass.must.has(type.key) || objectClass.may.has(type.key));
    if (!allowed) throw new DirectoryError('objectClassViolation', `attribute '${type.name}' not allowed`);
  }
}

/**
 * Checks the entry; returns its structural class's name. For a modified entry, `before` gives its
 * structural class before the change, which must stay the structural class (checked before the
 * content, as slapd does), and the attributes carried over as stored (not checked again).
 */
export function checkSchema(entry: Entry, registry: SchemaRegistry, before?: { readonly structural?: string; readonly stored: ReadonlySet<Attribute> }): string {
  const types = checkAttributes(entry, registry, before?.stored ?? NONE);
  const structuralBefore = before?.structural;
  const classes = classesOf(entry, registry);
  const structural = structuralClass(classes).name;
  if (structuralBefore !== undefined && structuralBefore.toLowerCase() !== structural.toLowerCase()) {
    throw new DirectoryError('objectClassModsProhibited', `structural object class modification from '${structuralBefore}' to '${structural}' not allowed`);
  }
  checkContent(classes, types);
  return structural;
}
