/**
 * Proving the database durable again after a failed write closed the write gate (write-gate.ts).
 * LevelDB's log may hold a broken record, so nothing written after it counts until LevelDB has
 * written its memtable (every write it holds, acknowledged or not) to a table file and started a
 * new log. compactRange does that first, whatever its range (DBImpl::CompactRange), so an attempt:
 *
 *   1. checks the room: a failed memtable write would stop LevelDB for good (a sticky background
 *      error, until the database is reopened), so it is tried only with twice LevelDB's memory
 *      (memtables and block cache, an upper bound of the table) plus ROOM_MARGIN free;
 *   2. compacts an empty key range (no key starts with \x00, keys.ts): the memtable is written
 *      and a new log started, no table is rewritten;
 *   3. checks the log that was newest before it is gone: LevelDB deletes it only once the
 *      memtable is in a table and the manifest says so (compactRange reports no error itself);
 *   4. writes a probe record, synced, to the new log.
 *
 * Then the gate opens. Until then an attempt is made every RETRY_MS; the log says why it waits.
 */
import { readdir, statfs } from 'node:fs/promises';
import { errorMessage } from '../errors.js';
import { metaKey, NO_KEYS } from './keys.js';
import type { WriteGate } from './write-gate.js';

/** Where the store says what happened (a pino logger fits). */
export interface StoreLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** What recovery needs of the database (classic-level's Level). */
export interface RecoveryDb {
  compactRange(start: string, end: string): Promise<void>;
  getProperty(property: string): string;
  put(key: string, value: Buffer, options: { sync: boolean }): Promise<void>;
}

const RETRY_MS = 1000;
/** Free space wanted besides twice LevelDB's memory before the memtable is written. */
const ROOM_MARGIN = 4 << 20;
/** How often a waiting recovery repeats its warning (a new reason to wait is told at once). */
const WARN_EVERY_MS = 60_000;
const PROBE_KEY = metaKey('durability-probe');
const MIB = 1 << 20;

const mib = (bytes: number): number => Math.round((bytes / MIB) * 10) / 10;

/** LevelDB's log files (NNNNNN.log), by number. */
async function logNumbers(dir: string): Promise<number[]> {
  return (await readdir(dir)).filter((name) => /^\d+\.log$/.test(name)).map((name) => Number.parseInt(name, 10));
}

/** Why writes still wait; `forRoom` when it is free space. */
interface Waiting {
  readonly reason: string;
  readonly forRoom: boolean;
}

export class WriteRecovery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private suspendedAt = 0;
  private warnedAt = 0;
  /** The last reason to wait, numbers left out: a new one is told at once. */
  private waitingKind = '';
  private attempts = 0;

  constructor(private readonly db: RecoveryDb, private readonly dir: string, private readonly gate: WriteGate, private readonly log?: StoreLog) {}

  /** This store's write closed the gate: says so and starts the attempts. */
  start(cause: unknown): void {
    this.suspendedAt = Date.now();
    this.warnedAt = this.suspendedAt;
    this.waitingKind = '';
    this.attempts = 0;
    this.log?.error({ err: cause, data: this.dir },
      'a database write failed: writes are refused (52, unavailable) until the database is durable again, which is retried '
      + `every ${RETRY_MS / 1000} s once there is room; reads go on; acknowledged writes are kept`);
    this.schedule(0);
  }

  /** No more attempts; resolves once the one running has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => { this.running = this.attempt(); }, ms);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    this.attempts += 1;
    const waiting = await this.tryOnce().catch((error: unknown): Waiting => ({ reason: `the attempt failed: ${errorMessage(error)}`, forRoom: false }));
    if (waiting === undefined) {
      this.gate.reopen();
      this.log?.info({ data: this.dir, suspendedMs: Date.now() - this.suspendedAt, attempts: this.attempts, refusedWrites: this.gate.refused },
        'writes resumed: LevelDB wrote its memtable to a table file and started a new log');
      return;
    }
    this.warn(waiting);
    this.schedule(RETRY_MS);
  }

  /** Says why writes still wait: at once for a new reason, else every WARN_EVERY_MS. */
  private warn({ reason: waiting, forRoom }: Waiting): void {
    const kind = waiting.replace(/[\d.]+/g, 'N');
    if (kind === this.waitingKind && Date.now() - this.warnedAt < WARN_EVERY_MS) return;
    this.waitingKind = kind;
    this.warnedAt = Date.now();
    this.log?.warn({ data: this.dir, waiting, suspendedMs: this.warnedAt - this.suspendedAt, attempts: this.attempts }, forRoom
      ? 'writes are still refused: waiting for free space where the database is'
      : 'writes are still refused: the database could not be proven durable yet (if this goes on, restart the server; acknowledged writes are kept)');
  }

  /** One attempt; undefined when the database is durable again, else why not yet. */
  private async tryOnce(): Promise<Waiting | undefined> {
    const room = await this.room();
    if (room !== undefined) return { reason: room, forRoom: true };
    const before = await logNumbers(this.dir);
    if (before.length === 0) return { reason: `no LevelDB log in ${this.dir}`, forRoom: false };
    const newest = Math.max(...before);
    await this.db.compactRange(NO_KEYS.start, NO_KEYS.end);
    if ((await logNumbers(this.dir)).includes(newest)) {
      return { reason: `LevelDB kept its log ${newest}: its memtable was not written to a table (a restart reopens the database)`, forRoom: false };
    }
    try {
      await this.db.put(PROBE_KEY, Buffer.from(new Date().toISOString()), { sync: true });
    } catch (error) {
      return { reason: `a probe write failed: ${errorMessage(error)}`, forRoom: false };
    }
    return undefined;
  }

  /** Undefined when there is room to write the memtable, else how much there is. */
  private async room(): Promise<string | undefined> {
    const { bavail, bsize } = await statfs(this.dir);
    const free = bavail * bsize;
    const needed = 2 * Number(this.db.getProperty('leveldb.approximate-memory-usage')) + ROOM_MARGIN;
    return free >= needed ? undefined : `${mib(free)} MiB free, ${mib(needed)} MiB wanted`;
  }
}
