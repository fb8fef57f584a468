/**
 * An entry as a search reads it: its stored record (codec.ts) and its dnKey when the read knew
 * it. It is decoded only as far as the search needs: the DN, the few attributes a filter tests,
 * the whole entry, or nothing at all when an answer is copied from the record's bytes
 * (sliceRecord). The entry itself stays a plain object (entry.ts): making Entry lazy made every
 * read of its attributes polymorphic and cost more than it saved (docs/performance.md).
 */
import { decodeEntry, recordDn, sliceRecord, type KeepName } from './codec.js';
import type { SlicedEntry } from '../protocol/encode-entry.js';
import type { Entry } from './entry.js';

export class EntryRecord {
  private whole: Entry | undefined;
  private text: string | undefined;

  /** `key`: the entry's dnKey, when the read that found the record knew it. */
  constructor(readonly record: Buffer, readonly key: string | undefined) {}

  /** The DN as written. */
  get dn(): string {
    this.text ??= recordDn(this.record);
    return this.text;
  }

  /** The whole entry, decoded once. */
  entry(): Entry {
    this.whole ??= decodeEntry(this.record);
    return this.whole;
  }

  /** The entry with only the attributes whose names `keep` accepts (all of them once it is decoded whole). */
  project(keep: KeepName): Entry {
    if (this.whole !== undefined) return this.whole;
    const projected = decodeEntry(this.record, keep);
    this.text ??= projected.dn;
    return projected;
  }

  /** Where the DN and the attributes `keep` accepts lie in the record's bytes. */
  slices(keep: KeepName): SlicedEntry {
    return sliceRecord(this.record, keep);
  }
}
