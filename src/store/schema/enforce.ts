/**
 * The schema check of what clients write (add, modify, modify DN: src/store/writes.ts), against
 * the schema in force, and the structuralObjectClass operational attribute it keeps on entries.
 * The server's own writes (lockout records, re-encoded passwords) are not checked: they touch
 * operational attributes only, and must work on entries stored before a schema change.
 */
import type { Entry } from '../entry.js';
import { checkSchema, structuralClass } from './check.js';
import type { SchemaObjectClass } from './registry.js';
import { currentSchema } from './installed.js';

const STRUCTURAL = 'structuralobjectclass';

const isStructural = (name: string): boolean => name.toLowerCase() === STRUCTURAL;

/** The structural class an entry records, else the one its classes give (undefined if they give none). */
function structuralOf(entry: Entry): string | undefined {
  const recorded = entry.attributes.find((attribute) => isStructural(attribute.name))?.values[0]?.toString('utf8');
  if (recorded !== undefined) return recorded;
  const registry = currentSchema();
  const classes = entry.attributes.filter((attribute) => attribute.name.toLowerCase() === 'objectclass')
    .flatMap((attribute) => attribute.values.map((value) => registry.objectClass(value.toString('utf8').trim())));
  if (classes.some((objectClass) => objectClass === undefined)) return undefined;
  try {
    return structuralClass(classes as SchemaObjectClass[]).name;
  } catch {
    return undefined;
  }
}

/**
 * Checks the entry a client's write gives (checkSchema's codes and messages); with `before`, its
 * structural class must be the one the entry had (objectClassModsProhibited, 69), and the values
 * of the attributes it carries over unchanged are not checked again. Returns the structural
 * class's name.
 */
export function checkClientEntry(after: Entry, before?: Entry): string {
  return checkSchema(after, currentSchema(), before && { structural: structuralOf(before), stored: new Set(before.attributes) });
}

/** The entry with structuralObjectClass set to `structural` (replacing any other value). */
export function withStructuralClass(entry: Entry, structural: string): Entry {
  const recorded = entry.attributes.find((attribute) => isStructural(attribute.name))?.values[0]?.toString('utf8');
  if (recorded === structural) return entry;
  const rest = entry.attributes.filter((attribute) => !isStructural(attribute.name));
  return { dn: entry.dn, attributes: [...rest, { name: 'structuralObjectClass', values: [Buffer.from(structural)] }] };
}
