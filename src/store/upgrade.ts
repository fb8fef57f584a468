/**
 * Store format 1 -> 2. Format 2 adds the group keys (keys.ts: g, r and memberof), which every
 * write of a group keeps from then on; a format-1 database has none. It is upgraded in place
 * when it is opened: each group entry's keys are written, and memberOf values an entry holds
 * (format 1 stored what an LDIF carried, e.g. slapcat's output with OpenLDAP's memberof overlay)
 * are removed, since memberOf is computed now; in unsynced batches, then the format, synced. An
 * upgrade cut short is done again on the next open (its writes give the same keys).
 */
import type { Level } from 'level';
import { decodeEntry, decodeValues, encodeEntry } from './codec.js';
import { GROUP_KINDS, membershipRecords, withoutMemberOf } from './groups.js';
import { MEMBER_OF, metaKey, presenceRange, subtreeRange } from './keys.js';

type Db = Level<string, Buffer>;

/** Records per unsynced batch of the upgrade. */
const BATCH_RECORDS = 10_000;

const GROUP_CLASSES: ReadonlySet<string> = new Set(GROUP_KINDS.map((kind) => kind.objectClass));

/** Whether a stored record is a group's, from its objectClass values alone. */
function isGroupRecord(record: Buffer): boolean {
  return decodeValues(record, 'objectClass').some((value) => GROUP_CLASSES.has(value.toString('utf8').trim().toLowerCase()));
}

/** Writes every group's keys, then `format`; resolves with the number of groups. */
export async function upgradeToFormat2(db: Db, format: string): Promise<number> {
  await db.clear(presenceRange(MEMBER_OF)); // only there if memberOf was an indexed attribute: of stored values
  let batch = db.batch();
  let groups = 0;
  for await (const [key, record] of db.iterator(subtreeRange(''))) {
    const stored = decodeValues(record, 'memberOf').length > 0;
    if (stored) batch.put(key, encodeEntry(withoutMemberOf(decodeEntry(record))));
    if (isGroupRecord(record)) {
      groups += 1;
      for (const [derived, value] of membershipRecords(decodeEntry(record), key.slice(2))) batch.put(derived, value);
    }
    if (batch.length < BATCH_RECORDS) continue;
    await batch.write();
    batch = db.batch();
  }
  batch.put(metaKey('format'), Buffer.from(format));
  await batch.write({ sync: true });
  return groups;
}
