/**
 * When the password table (src/store/shared-table.ts) is filled by a walk over the entry
 * records, as `serve --fill-password-table` says: `before` (the default) walks at once and the
 * server listens only after it (start.ts: every bind from the first finds its account in the
 * table, the start later by the walk's time: a million users, 2.5 s here; docs/performance.md,
 * "Every account read before listening, by default"); `quiet` walks only while the serving
 * threads answer fewer than QUIET_OPERATIONS_PER_SECOND operations, looked at after each slice
 * and every CHECK_MS while busy (the walk's iterator closed meanwhile), so a busy server fills
 * the table through its binds alone and the walk costs it nothing; `now` walks at once whatever
 * the load (a million users: the binds of the first 10-15 s at a third to two thirds of their
 * rate); `never` leaves it to the binds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DirectoryStore, WalkTurns } from '../store/index.js';
import { OP_KINDS, type StatsReader } from './monitor/stats.js';

export const FILL_WHEN = ['quiet', 'now', 'before', 'never'] as const;
export type FillWhen = (typeof FILL_WHEN)[number];

/** Below this rate the server counts as quiet. */
const QUIET_OPERATIONS_PER_SECOND = 200;
/** How often a busy server is looked at again. */
const CHECK_MS = 100;

/** Operations answered so far, over every thread. */
function answered(reader: StatsReader): number {
  let sum = 0;
  for (let kind = 0; kind < OP_KINDS.length; kind += 1) sum += reader.completed(kind);
  return sum;
}

/**
 * The walk's turns while the server is quiet: `now` says whether the operations answered over the
 * last CHECK_MS or more came at less than the quiet rate (the verdict before, within CHECK_MS of
 * the last look: quiet at first); `wait` resolves once they do (at once when quiet).
 */
export function quietTurns(reader: StatsReader): WalkTurns {
  let seen = { operations: answered(reader), at: performance.now() };
  let quiet = true;
  const now = (): boolean => {
    const current = { operations: answered(reader), at: performance.now() };
    if (current.at - seen.at < CHECK_MS) return quiet;
    quiet = ((current.operations - seen.operations) * 1000) / (current.at - seen.at) < QUIET_OPERATIONS_PER_SECOND;
    seen = current;
    return quiet;
  };
  const wait = async (): Promise<void> => {
    while (!now()) await sleep(CHECK_MS, undefined, { ref: false });
  };
  return { now, wait };
}

/** Logs what the password table is, and starts its walk as `when` says (its end is logged too); `before` has walked already. */
export function fillPasswordTable(store: DirectoryStore, when: FillWhen, reader: StatsReader, log: Logger): void {
  const table = store.passwords;
  log.info({ passwordTable: table !== undefined, maxMb: table && table.buffer.byteLength / 2 ** 20, fill: table && when }, 'password table');
  if (table === undefined || when === 'never' || when === 'before') return;
  const started = performance.now();
  store.fillPasswordTable(when === 'quiet' ? quietTurns(reader) : undefined).then(
    (kept) => logFilled(store, kept, started, log, 'password table filled'),
    (error: unknown) => {
      if (store.isOpen) log.warn({ err: error }, 'filling the password table stopped (binds read the database and fill it)');
    },
  );
}

/** `--fill-password-table before`: the whole walk, awaited before the server listens. */
export async function fillBeforeListening(store: DirectoryStore, when: FillWhen, log: Logger): Promise<void> {
  if (when !== 'before' || store.passwords === undefined) return;
  const started = performance.now();
  log.info('password table: reading every account before listening (--fill-password-table before)');
  logFilled(store, await store.fillPasswordTable(), started, log, 'password table filled before listening');
}

function logFilled(store: DirectoryStore, kept: number, started: number, log: Logger, message: string): void {
  const table = store.passwords!;
  log.info({ kept, bytes: table.bytesUsed, full: table.full, seconds: Math.round(performance.now() - started) / 1000 }, message);
}
