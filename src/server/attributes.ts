/**
 * Which attributes a search returns: `*` (all user attributes, also when none are named), `+`
 * (all operational ones), `1.1` (none), and names in any case, alias or OID. Computed
 * attributes (hasSubordinates, entryDN, subschemaSubentry, memberOf) are added when asked for. Attributes the viewer may not
 * read (userPassword, the password policy state: access.ts) are left out, however they are asked for.
 */
import { attributeType, typeKey, MEMBER_OF, SchemaMemo, SUBSCHEMA_DN, type Attribute, type Entry } from '../store/index.js';
import type { Readable } from './access.js';

export interface Selection {
  readonly allUser: boolean;
  readonly allOperational: boolean;
  /** Type keys named explicitly (lower-case canonical names). */
  readonly named: ReadonlySet<string>;
  /** Whether no stored attribute is selected (`1.1`, or memberOf alone): the records' attributes need not be walked. */
  readonly storedNone: boolean;
  /** Whether each attribute name seen so far is wanted (the same names come back in every entry of a search). */
  readonly decided: Map<string, boolean>;
}

/** Names whose decision a selection remembers, at most. */
const DECIDED_LIMIT = 256;

const COMPUTED = ['hasSubordinates', 'entryDN', 'subschemaSubentry', 'memberOf'] as const;

const SUBSCHEMA = Buffer.from(SUBSCHEMA_DN);

/** Selections by their attribute list (as JSON, so that no two lists share a text), at most 256, of lists up to 1,024 characters. */
const selections = new SchemaMemo<Selection>(256, 1024);

/**
 * The selection an attribute list asks for. The same few lists come in search after search (none,
 * `1.1`, `*`, `+`), and a one-entry search would otherwise decide every name of its entry anew, so a
 * list's selection, with what it has decided, is kept: a decision depends only on the list and the
 * name, and the kept selections go when another schema is installed.
 */
export function parseSelection(requested: readonly string[]): Selection {
  return selections.get(JSON.stringify(requested), () => freshSelection(requested));
}

function freshSelection(requested: readonly string[]): Selection {
  const named = new Set<string>();
  let allUser = requested.length === 0;
  let allOperational = false;
  for (const name of requested) {
    if (name === '*') allUser = true;
    else if (name === '+') allOperational = true;
    else if (name !== '1.1' && name !== '') named.add(typeKey(name));
  }
  const storedNone = !allUser && !allOperational && [...named].every((key) => key === MEMBER_OF);
  return { allUser, allOperational, named, storedNone, decided: new Map() };
}

function decide(selection: Selection, name: string): boolean {
  if (selection.named.has(typeKey(name))) return true;
  return attributeType(name).operational ? selection.allOperational : selection.allUser;
}

function wanted(selection: Selection, name: string): boolean {
  const known = selection.decided.get(name);
  if (known !== undefined) return known;
  const decision = decide(selection, name);
  if (selection.decided.size < DECIDED_LIMIT) selection.decided.set(name, decision);
  return decision;
}

export function wantsComputed(selection: Selection, name: (typeof COMPUTED)[number]): boolean {
  return wanted(selection, name);
}

/** Whether a stored attribute of this name is sent: selected, and readable by the viewer. */
export function sendsAttribute(selection: Selection, readable: Readable, name: string): boolean {
  return wanted(selection, name) && (readable.all || readable.attribute(name));
}

interface Computed {
  readonly typesOnly: boolean;
  readonly hasSubordinates?: boolean;
  readonly memberOf?: readonly Buffer[];
}

/** The computed attributes asked for, values emptied for typesOnly; `dn`: the entry's DN as written (entryDN). */
export function computedAttributes(dn: string, selection: Selection, options: Computed): readonly Attribute[] {
  const computed: Attribute[] = [];
  if (options.hasSubordinates !== undefined && wantsComputed(selection, 'hasSubordinates')) {
    computed.push({ name: 'hasSubordinates', values: [Buffer.from(options.hasSubordinates ? 'TRUE' : 'FALSE')] });
  }
  if (wantsComputed(selection, 'entryDN')) computed.push({ name: 'entryDN', values: [Buffer.from(dn)] });
  if (wantsComputed(selection, 'subschemaSubentry')) computed.push({ name: 'subschemaSubentry', values: [SUBSCHEMA] });
  if (options.memberOf && options.memberOf.length > 0 && wantsComputed(selection, 'memberOf')) computed.push({ name: 'memberOf', values: options.memberOf });
  if (computed.length === 0) return NONE;
  return options.typesOnly ? computed.map(withoutValues) : computed;
}

const NONE: readonly Attribute[] = [];

function withoutValues(attribute: Attribute): Attribute {
  return { name: attribute.name, values: [] };
}

/** The attributes to send for an entry, computed ones included, values emptied for typesOnly. */
export function selectAttributes(entry: Entry, selection: Selection, options: Computed & { readable: Readable }): Attribute[] {
  const selected = entry.attributes.filter((attribute) => sendsAttribute(selection, options.readable, attribute.name));
  const stored = options.typesOnly ? selected.map(withoutValues) : selected;
  return [...stored, ...computedAttributes(entry.dn, selection, options)];
}
