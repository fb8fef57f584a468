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
const OBJECT_CLASS = 'objectclass';

const NONE: ReadonlySet<Attribute> = new Set();

const OID_PREFIX = /^oid\./i;

/** The attribute type part of a description: 'cn;lang-en' -> 'cn', 'OID.2.5.4.3' -> '2.5.4.3'. */
function baseName(description: string): string {
  const semicolon = description.indexOf(';');
  const type = semicolon === -1 ? description : description.slice(0, semicolon);
  return (type.charCodeAt(0) | 0x20) === 0x6f && OID_PREFIX.test(type) ? type.slice(4) : type;
}

/** An attribute description as the check reads it: its type, and whether it names objectClass itself. */
interface Described {
  readonly type: SchemaAttributeType | undefined;
  readonly namesObjectClass: boolean;
}

/** What a list of object classes (every one known) gives the check. */
interface ClassList {
  readonly classes: readonly SchemaObjectClass[];
  readonly structural: string;
  /** The keys of every type some class requires or allows; undefined when extensibleObject allows any. */
  readonly allowed: ReadonlySet<string> | undefined;
}

/**
 * What the check keeps of a registry, which never changes once built: the same few attribute
 * descriptions and lists of classes come in entry after entry (a bulk load checks a million
 * entries of one shape). Bounded: at most KEPT answers of each kind, for texts of at most
 * KEPT_LENGTH characters; when full it starts over. A list whose check throws is not kept.
 */
interface Kept {
  readonly descriptions: Map<string, Described>;
  readonly classLists: Map<string, ClassList>;
}

const KEPT = 4096;
const KEPT_LENGTH = 512;
const keptByRegistry = new WeakMap<SchemaRegistry, Kept>();

function keptFor(registry: SchemaRegistry): Kept {
  let kept = keptByRegistry.get(registry);
  if (!kept) {
    kept = { descriptions: new Map(), classLists: new Map() };
    keptByRegistry.set(registry, kept);
  }
  return kept;
}

function keep<T>(map: Map<string, T>, text: string, value: T): T {
  if (text.length > KEPT_LENGTH) return value;
  if (map.size >= KEPT) map.clear();
  map.set(text, value);
  return value;
}

function described(description: string, registry: SchemaRegistry, kept: Kept): Described {
  const known = kept.descriptions.get(description);
  if (known) return known;
  const base = baseName(description);
  return keep(kept.descriptions, description, { type: registry.attributeType(base), namesObjectClass: base.toLowerCase() === OBJECT_CLASS });
}

/** The classes the entry names (every one known: checked with the values); 65 when it names none. */
function classListOf(entry: Entry, registry: SchemaRegistry, kept: Kept): ClassList {
  const names: string[] = [];
  for (const attribute of entry.attributes) {
    if (!described(attribute.name, registry, kept).namesObjectClass) continue;
    for (const value of attribute.values) names.push(value.toString('utf8').trim());
  }
  if (names.length === 0) throw new DirectoryError('objectClassViolation', 'no objectClass attribute');
  const text = names.join('\0');
  return kept.classLists.get(text) ?? keep(kept.classLists, text, classList(names.map((name) => registry.objectClass(name)!)));
}

function classList(classes: readonly SchemaObjectClass[]): ClassList {
  const structural = structuralClass(classes).name;
  if (classes.some((objectClass) => objectClass.key === EXTENSIBLE)) return { classes, structural, allowed: undefined };
  return { classes, structural, allowed: new Set(classes.flatMap((objectClass) => [...objectClass.must, ...objectClass.may])) };
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
function checkAttributes(entry: Entry, registry: SchemaRegistry, kept: Kept, stored: ReadonlySet<Attribute>): Map<SchemaAttributeType, number> {
  const counts = new Map<SchemaAttributeType, number>();
  for (const attribute of entry.attributes) {
    const { type } = described(attribute.name, registry, kept);
    if (!type) throw new DirectoryError('undefinedAttributeType', `${attribute.name}: attribute type undefined`);
    const valid = type.key === OBJECT_CLASS ? (value: Buffer) => registry.objectClass(value.toString('utf8').trim()) !== undefined : type.syntax.check;
    const bad = valid && !stored.has(attribute) ? attribute.values.findIndex((value) => !valid(value)) : -1;
    if (bad !== -1) throw new DirectoryError('invalidAttributeSyntax', `${attribute.name}: value #${bad} invalid per syntax`);
    const count = (counts.get(type) ?? 0) + attribute.values.length;
    if (type.singleValue && count > 1) throw new DirectoryError('constraintViolation', `${attribute.name}: multiple values provided`);
    counts.set(type, count);
  }
  return counts;
}

function checkContent(list: ClassList, types: ReadonlyMap<SchemaAttributeType, unknown>): void {
  const present = new Set<string>();
  for (const type of types.keys()) present.add(type.key);
  for (const objectClass of list.classes) {
    for (const key of objectClass.must) {
      if (!present.has(key)) throw new DirectoryError('objectClassViolation', `object class '${objectClass.name}' requires attribute '${key}'`);
    }
  }
  if (!list.allowed) return;
  for (const type of types.keys()) {
    if (!type.operational && !list.allowed.has(type.key)) throw new DirectoryError('objectClassViolation', `attribute '${type.name}' not allowed`);
  }
}

/**
 * Checks the entry; returns its structural class's name. For a modified entry, `before` gives its
 * structural class before the change, which must stay the structural class (checked before the
 * content, as slapd does), and the attributes carried over as stored (not checked again).
 */
export function checkSchema(entry: Entry, registry: SchemaRegistry, before?: { readonly structural?: string; readonly stored: ReadonlySet<Attribute> }): string {
  const kept = keptFor(registry);
  const types = checkAttributes(entry, registry, kept, before?.stored ?? NONE);
  const structuralBefore = before?.structural;
  const list = classListOf(entry, registry, kept);
  const { structural } = list;
  if (structuralBefore !== undefined && structuralBefore.toLowerCase() !== structural.toLowerCase()) {
    throw new DirectoryError('objectClassModsProhibited', `structural object class modification from '${structuralBefore}' to '${structural}' not allowed`);
  }
  checkContent(list, types);
  return structural;
}
