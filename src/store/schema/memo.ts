/**
 * A bounded memo of what a text means under the schema in force (an attribute description's
 * type, a DN's normalized form, an attribute list's selection): the same few texts come in
 * request after request. At most `entries` answers, for texts of at most `length` characters
 * (longer ones are worked out each time, so no client can fill it with junk); when full it starts
 * over; emptied whenever another schema is installed (installed.ts). A throw is not kept.
 */
import { onSchemaChange } from './installed.js';

export class SchemaMemo<T> {
  private readonly kept = new Map<string, T>();

  constructor(private readonly entries: number, private readonly length: number) {
    onSchemaChange(() => this.kept.clear());
  }

  /** The answer for `text`: the kept one, else `compute(text)`, kept. */
  get(text: string, compute: (text: string) => T): T {
    const known = this.kept.get(text);
    if (known !== undefined) return known;
    const value = compute(text);
    if (text.length <= this.length) {
      if (this.kept.size >= this.entries) this.kept.clear();
      this.kept.set(text, value);
    }
    return value;
  }
}
