/**
 * The walk that fills the password table (shared-table.ts) with every entry's userPassword
 * values, behind the listeners (a bind that comes first reads LevelDB and keeps what it read).
 * The entry records are walked from one snapshot, each kept with the marks copied before the
 * snapshot was made, so a write landing meanwhile leaves its entries' records stale (a new
 * iterator for every slice cost twice the CPU). A million users: 5.0-5.6 s (docs/performance.md,
 * "A password table shared by the threads"). Between slices the walk asks `turns` whether it may
 * go on (not while the server is busy, src/server/password-fill.ts); when it may not, it closes
 * its iterator and waits, and goes on from a new snapshot, so none is held while it waits.
 */
import { decodeValues } from './codec.js';
import { dnKeyOfEntryKey, ENTRY_KEYS } from './keys.js';
import type { Db } from './level.js';
import { hashKey, SharedTable } from './shared-table.js';
import { PASSWORD_ATTRIBUTE } from './reads.js';

/** Entry records read at once, at most... */
const SLICE = 1024;
/** ...and bytes (classic-level's default, 16 KiB, is about 15 records of 1 KB: a trip to LevelDB's thread for each). */
const SLICE_BYTES = 1 << 20;

/** Where a walk is: entries kept, the last entry key read, whether any are left. */
interface Walked {
  readonly kept: number;
  readonly last?: string;
  readonly more: boolean;
}

/** When the walk may go on: now (between slices), and once it may again. */
export interface WalkTurns {
  now(): boolean;
  wait(): Promise<void>;
}

/** Turns for a walk that never waits. */
const ALWAYS: WalkTurns = { now: () => true, wait: async () => {} };

/** Fills the table until every entry is read, the table is full or `isOpen` says no; returns how many entries it kept. */
export async function walkPasswords(db: Db, table: SharedTable, isOpen: () => boolean, turns: WalkTurns = ALWAYS): Promise<number> {
  let walked: Walked = { kept: 0, more: true };
  while (walked.more && !table.full && isOpen()) {
    await turns.wait();
    if (isOpen()) walked = await walkOneSnapshot(db, table, walked, turns);
  }
  return walked.kept;
}

/** One snapshot's walk, after `from.last`, until the end or until its turn is over. */
async function walkOneSnapshot(db: Db, table: SharedTable, from: Walked, turns: WalkTurns): Promise<Walked> {
  const marks = table.copyMarks();
  const start = from.last === undefined ? { gte: ENTRY_KEYS.gte } : { gt: from.last };
  const iterator = db.iterator({ ...start, lt: ENTRY_KEYS.lt, fillCache: false, highWaterMarkBytes: SLICE_BYTES });
  let { kept, last } = from;
  try {
    for (let slice = await iterator.nextv(SLICE); slice.length > 0; slice = await iterator.nextv(SLICE)) {
      kept += keepSlice(table, slice, marks);
      last = slice.at(-1)![0];
      if (table.full || !turns.now()) return { kept, last, more: !table.full };
    }
    return { kept, last, more: false };
  } finally {
    await iterator.close();
  }
}

/** Keeps each record's values with the mark its key had before the snapshot; returns how many were kept. */
function keepSlice(table: SharedTable, slice: readonly [string, Buffer][], marks: Int32Array): number {
  let kept = 0;
  for (const [entry, record] of slice) {
    const key = dnKeyOfEntryKey(entry)!;
    const hash = hashKey(key);
    if (table.keep(key, hash, decodeValues(record, PASSWORD_ATTRIBUTE), SharedTable.markIn(marks, hash))) kept += 1;
  }
  return kept;
}
