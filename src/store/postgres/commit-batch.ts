/**
 * Group commit for a node's writes at once (record.ts): the commits that arrive while the
 * node's transactions are busy go to PostgreSQL together, as one transaction. What PostgreSQL
 * spends on a transaction (BEGIN, COMMIT and its WAL flush, the snapshot, the decoding of the
 * stream, the applier's LevelDB batch) is then shared by every write in it: one row a
 * transaction cost PostgreSQL about 200 µs of CPU here, eight rows a transaction about 60 µs a
 * row (docs/scale-out.md, "Writes committed together").
 *
 *     commit(write) ──> sent at once when no transaction runs (or every one running has
 *                       stalled), else queued; when it ends, the queue goes as the next one:
 *     BEGIN; LOCK_EQUAL(every write's keys, in key order); the writes' tokens; the rows; COMMIT
 *
 * A write only joins a transaction whose writes touch none of its entries or settings (on one
 * node its entry locks keep that so; a later one waits for the next transaction). Each write
 * is what it would be alone: the lock of every entry it read, compared with what it read, and
 * its rows. When PostgreSQL refuses a transaction of several writes (one of them found the copy
 * behind: nothing is committed), each is sent again alone, so only the write at fault hears
 * of it. A connection lost during the transaction fails every write in it, as it would each
 * alone (the caller answers that the write may or may not be stored).
 */
import pg from 'pg';
import type { RowChanges, EntryRow } from './changes.js';
import { lockEqualStatement, rowStatements, tokensStatement } from './statements.js';

/**
 * One transaction at a time, as LevelDB's writers queue: the writes arriving meanwhile make the
 * next one larger (two at a time measured 10% fewer modifies/s here, with fewer writes in each).
 * But a transaction that waits (a row another node holds locked) must not hold up the node's
 * other writes: once every transaction in flight has run STALLED_MILLIS, another starts, up to
 * MAX_IN_FLIGHT.
 */
export const STALLED_MILLIS = 20;
export const MAX_IN_FLIGHT = 8;
/** Writes in one transaction at most. */
export const MAX_WRITES = 32;

/** One write's commit: what it checks (the entries it read, each with the digest of the record read, or none) and changes. */
export interface WriteCommit {
  /** Entries whose rows must hold what the write read (in key order), with those digests (undefined: no row). */
  readonly checked: readonly string[];
  readonly digests: readonly (string | undefined)[];
  /** The logical decoding message that tells the applier this write is applied. */
  readonly token: string;
  /** The records the local copy held of the entries it changes (an update where one is held, else an insert). */
  readonly local: ReadonlyMap<string, Buffer | undefined>;
  readonly changes: RowChanges;
}

interface Queued {
  readonly write: WriteCommit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Whether PostgreSQL answered the statement with an error (its ErrorResponse): the transaction is
 * aborted, nothing of it committed. A socket error carries a code too (ECONNRESET), but then the
 * transaction may have committed.
 */
export const refusedByPostgres = (error: unknown): boolean => error instanceof pg.DatabaseError;

/** What a write touches: its entries and settings, as names that cannot collide. */
function touched(write: WriteCommit): string[] {
  return [...write.checked, ...write.changes.entries.keys(), ...[...write.changes.settings.keys()].map((name) => `\0setting:${name}`)];
}

/**
 * The statements of one transaction for these writes (whose entries and settings are disjoint).
 * `lockedFirst`: the transaction is open already, the write's own entries locked (record.ts), so
 * no BEGIN, and the entries it took later are checked without waiting for their locks.
 */
export function transactionText(writes: readonly WriteCommit[], lockedFirst = false): string {
  const checks = writes.flatMap((write) => write.checked.map((key, i) => [key, write.digests[i]] as const)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const local = new Map<string, Buffer | undefined>();
  const entries = new Map<string, EntryRow | null>();
  const settings = new Map<string, string | null>();
  for (const write of writes) {
    for (const [key, record] of write.local) local.set(key, record);
    for (const [key, row] of write.changes.entries) entries.set(key, row);
    for (const [name, value] of write.changes.settings) settings.set(name, value);
  }
  const check = checks.length === 0 ? [] : [lockEqualStatement(checks.map(([key]) => key), checks.map(([, digest]) => digest), !lockedFirst)];
  return [...(lockedFirst ? [] : ['BEGIN']), ...check, tokensStatement(writes.map((write) => write.token)), ...rowStatements(local, { entries, settings }), 'COMMIT'].join('; ');
}

export class CommitBatcher {
  private readonly queue: Queued[] = [];
  /** When each transaction in flight was sent (performance.now()). */
  private readonly running = new Set<{ readonly at: number }>();
  private stallTimer: NodeJS.Timeout | undefined;
  /** Transactions sent (monitoring), and the writes in them (the tests). */
  transactions = 0;
  writes = 0;

  /** `connect` gives a connection of the node's pool (or throws: PostgreSQL unreachable). */
  constructor(private readonly connect: () => Promise<pg.PoolClient>) {}

  /** Resolves once the write is committed; rejects with PostgreSQL's error (refusedByPostgres: nothing committed) or the connection's. */
  commit(write: WriteCommit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.next();
    });
  }

  /** Sends the queued writes when nothing is in flight, or every transaction in flight has stalled. */
  private next(): void {
    while (this.queue.length > 0 && this.mayStart()) {
      const batch = this.take();
      const transaction = { at: performance.now() };
      this.running.add(transaction);
      void this.send(batch).finally(() => {
        this.running.delete(transaction);
        this.next();
      });
    }
    if (this.queue.length > 0 && this.running.size < MAX_IN_FLIGHT) this.watchForStall();
  }

  private mayStart(): boolean {
    if (this.running.size === 0) return true;
    if (this.running.size >= MAX_IN_FLIGHT) return false;
    const now = performance.now();
    return [...this.running].every((transaction) => now - transaction.at >= STALLED_MILLIS);
  }

  /** Looks again when the youngest transaction in flight will have stalled. */
  private watchForStall(): void {
    if (this.stallTimer) return;
    const youngest = Math.max(...[...this.running].map((transaction) => transaction.at));
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      this.next();
    }, Math.max(1, youngest + STALLED_MILLIS - performance.now()));
    this.stallTimer.unref();
  }

  /** The queued writes that go together: in order, each touching nothing another one does, at most MAX_WRITES. */
  private take(): Queued[] {
    const taken: Queued[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < this.queue.length && taken.length < MAX_WRITES;) {
      const names = touched(this.queue[i]!.write);
      if (names.some((name) => seen.has(name))) {
        i += 1;
        continue;
      }
      for (const name of names) seen.add(name);
      taken.push(...this.queue.splice(i, 1));
    }
    return taken;
  }

  private async send(batch: readonly Queued[]): Promise<void> {
    try {
      await this.run(batch.map((queued) => queued.write));
      for (const queued of batch) queued.resolve();
    } catch (error) {
      if (batch.length === 1 || !refusedByPostgres(error)) {
        for (const queued of batch) queued.reject(error);
        return;
      }
      // PostgreSQL refused it (nothing committed): each write alone, so only the one at fault fails.
      await Promise.all(batch.map((queued) => this.send([queued])));
    }
  }

  private async run(writes: readonly WriteCommit[]): Promise<void> {
    const client = await this.connect();
    let broken = false;
    try {
      this.transactions += 1;
      this.writes += writes.length;
      await client.query(transactionText(writes));
    } catch (error) {
      broken = !refusedByPostgres(error);
      if (!broken) await client.query('ROLLBACK').catch(() => { broken = true; });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
