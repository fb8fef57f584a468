/**
 * When the password table (src/store/password-table.ts) is filled by a walk over the entry
 * records, as `serve --fill-password-table` says: `quiet` (the default) walks only while the
 * serving threads answer fewer than QUIET_OPERATIONS_PER_SECOND operations, looked at before each
 * slice and every CHECK_MS while busy, so a busy server fills the table through its binds alone
 * and the walk costs it nothing; `now` walks at once whatever the load (a million users: 7-9 s of
 * CPU, the binds of the first half minute at about half their rate, docs/performance.md); `never`
 * leaves it to the binds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DirectoryStore } from '../store/index.js';
import { OP_KINDS, type StatsReader } from './monitor/stats.js';

export const FILL_WHEN = ['quiet', 'now', 'never'] as const;
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
 * A turn for the walk: resolves once the operations answered since the last look came at less
 * than the quiet rate, true when it had to wait for that.
 */
export function quietTurns(reader: StatsReader): () => Promise<boolean> {
  let seen = { operations: answered(reader), at: performance.now() };
  return async () => {
    for (let waited = false; ; waited = true) {
      const now = { operations: answered(reader), at: performance.now() };
      const rate = ((now.operations - seen.operations) * 1000) / Math.max(1, now.at - seen.at);
      seen = now;
      if (rate < QUIET_OPERATIONS_PER_SECOND) return waited;
      await sleep(CHECK_MS, undefined, { ref: false });
    }
  };
}

/** Logs what the password table is, and starts its walk as `when` says (its end is logged too). */
export function fillPasswordTable(store: DirectoryStore, when: FillWhen, reader: StatsReader, log: Logger): void {
  const table = store.passwords;
  log.info({ passwordTable: table !== undefined, maxMb: table && table.buffer.byteLength / 2 ** 20, fill: table && when }, 'password table');
  if (table === undefined || when === 'never') return;
  const started = performance.now();
  store.fillPasswordTable(when === 'quiet' ? quietTurns(reader) : undefined).then(
    (kept) => log.info({ kept, bytes: table.bytesUsed, full: table.full, seconds: Math.round(performance.now() - started) / 1000 }, 'password table filled'),
    (error: unknown) => {
      if (store.isOpen) log.warn({ err: error }, 'filling the password table stopped (binds read the database and fill it)');
    },
  );
}
