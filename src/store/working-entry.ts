/**
 * One working copy of an entry while a modify applies its changes (modification.ts), so that n
 * changes cost O(n + values), not O(n x values): the attributes by key in their order, each
 * touched one with its values in a mutable list (a deleted value leaves a hole) and, once a
 * change needs it, the positions of its values by normalized value, kept from change to change.
 * Untouched attributes are not copied. A touched attribute moves to the end of the entry and one
 * left without values leaves it, as withAttribute (entry.ts) does, so the entry that comes out
 * is the one applying the changes one by one with withAttribute would give.
 */
import type { Attribute, Entry } from './entry.js';
import { attributeKey } from './schema.js';

/** An attribute some change touched. */
interface WorkingAttribute {
  /** The description as stored (or as the change that created it wrote it). */
  readonly name: string;
  /** Values in order; undefined where one was deleted. */
  readonly values: (Buffer | undefined)[];
  /** Values left (not undefined). */
  live: number;
  /** Positions of the live values by normalized value, ascending; built on first need. */
  positions?: Map<string, number[]>;
}

export class WorkingEntry {
  private readonly attributes = new Map<string, Attribute | WorkingAttribute>();

  constructor(private readonly dn: string, attributes: readonly Attribute[]) {
    for (const attribute of attributes) this.attributes.set(attributeKey(attribute.name), attribute);
  }

  static of(entry: Entry): WorkingEntry {
    return new WorkingEntry(entry.dn, entry.attributes);
  }

  /** The attribute of this description, ready to change, or undefined when the entry lacks it. */
  find(description: string): WorkingAttribute | undefined {
    const key = attributeKey(description);
    const found = this.attributes.get(key);
    if (found === undefined || isWorking(found)) return found;
    const working: WorkingAttribute = { name: found.name, values: [...found.values], live: found.values.length };
    this.attributes.set(key, working);
    return working;
  }

  /** The live values of an attribute, in order. */
  static valuesOf(attribute: WorkingAttribute): Buffer[] {
    return attribute.values.filter((value): value is Buffer => value !== undefined);
  }

  /** The positions of an attribute's live values by normalized value. */
  static positionsOf(attribute: WorkingAttribute, normalize: (value: Buffer) => string): Map<string, number[]> {
    if (attribute.positions) return attribute.positions;
    const positions = new Map<string, number[]>();
    attribute.values.forEach((value, i) => {
      if (value === undefined) return;
      const key = normalize(value);
      const list = positions.get(key);
      if (list) list.push(i);
      else positions.set(key, [i]);
    });
    attribute.positions = positions;
    return positions;
  }

  /** Marks an attribute changed: it moves to the end, or leaves the entry when it has no value left. */
  touched(description: string, attribute: WorkingAttribute): void {
    const key = attributeKey(description);
    this.attributes.delete(key);
    if (attribute.live > 0) this.attributes.set(key, attribute);
  }

  /** Puts these values in place of the attribute's (kept name if it exists), or removes it when none. */
  replace(description: string, values: readonly Buffer[]): void {
    const name = this.attributes.get(attributeKey(description))?.name ?? description;
    this.touched(description, { name, values: [...values], live: values.length });
  }

  toEntry(): Entry {
    const attributes: Attribute[] = [];
    for (const attribute of this.attributes.values()) {
      attributes.push(isWorking(attribute) ? { name: attribute.name, values: WorkingEntry.valuesOf(attribute) } : attribute);
    }
    return { dn: this.dn, attributes };
  }
}

function isWorking(attribute: Attribute | WorkingAttribute): attribute is WorkingAttribute {
  return 'live' in attribute;
}
