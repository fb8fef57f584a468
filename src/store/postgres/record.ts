/**
 * Writes on a node of the PostgreSQL store (docs/scale-out.md). A write runs as it does on one
 * LevelDB (writes.ts: its entry locks, its reads of the local copy, its checks, its batch), and
 * its batch becomes one PostgreSQL transaction. Two ways, chosen per write (around):
 *
 * - At once (the usual way): the write reads the local copy and sends everything in one round
 *   trip: BEGIN; the lock of every entry it read or writes, compared with what it read
 *   (LOCK_EQUAL, schema.ts: the SHA-256 of each record, no row where it read none); the
 *   logical decoding message carrying its token; the changed rows; COMMIT. A row that differs
 *   aborts the transaction (STALE_ROW), as does another node's insert of the same entry (unique
 *   key), a parent deleted meanwhile or a new child under a deleted parent (the deferred foreign
 *   key): StaleCopy, and the write runs again once the copy caught up (DirectoryStore.retrying).
 * - Locked first, for entries whose write at once lately found the copy behind (contended, a
 *   second or so): BEGIN and the lock of the write's entries in one round trip before it reads
 *   them; the node waits until the applier has brought the copy to the versions locked (they
 *   are committed, so the stream carries them; locked, they cannot move meanwhile). What it
 *   checks is then what PostgreSQL holds, so writes to one hot entry from many nodes take turns
 *   instead of running again and again. Its commit checks the entries it took later the same
 *   way, without waiting for their locks, in the round trip of the commit.
 *
 * Either way no update is lost between nodes. After COMMIT the write waits until the applier has
 * applied its transaction, so the client reads its own write on this node.
 *
 * PostgreSQL unreachable: unavailable (52), nothing written; a connection lost during COMMIT
 * answers `other` (the write may or may not be stored), as a LevelDB write whose outcome is
 * unknown does (store.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { DirectoryError, StaleCopy } from '../errors.js';
import type { HeldLocks } from '../mutex.js';
import type { BatchOp } from '../batch-ops.js';
import { APPLY_WAIT_BUCKETS, type RecordStats, type SharedFailures, type SystemOfRecord } from '../system-of-record.js';
import type { Applier } from './applier.js';
import { rowChanges } from './changes.js';
import { CommitBatcher, refusedByPostgres, transactionText } from './commit-batch.js';
import { STALE_ROW } from './schema.js';
import { lockStatement, tokenStatement } from './statements.js';

/** How long a committed write waits for the local copy to apply it before answering anyway (a warning is logged). */
const APPLY_WAIT_MILLIS = 10_000;
/** PostgreSQL's codes for another node having got there first: a row not as read, unique key, foreign key, a row locked (NOWAIT), a deadlock. */
const CONFLICTS = new Set([STALE_ROW, '23505', '23503', '55P03', '40P01']);
/** How long an entry whose write at once found the copy behind has its writes locked first. */
const CONTENDED_MILLIS = 1000;
/** Contended entries remembered at most (the oldest forgotten first). */
const CONTENDED_KEYS = 10_000;

const digest = (record: Buffer): string => createHash('sha256').update(record).digest('hex');

export interface RecordLog {
  warn(details: object, message: string): void;
}

/** A write's PostgreSQL transaction, from its entry locks (locked first) or its commit (at once) to its end. */
interface Session {
  client: pg.PoolClient | undefined;
  /** Entries locked in PostgreSQL and found equal in the local copy before the write ran (locked first; else none)... */
  locked: ReadonlySet<string>;
  /** ...and the applier's clock then (at once: when the entry locks were taken): if one of them changes in the copy after this, the write read a version it must not use. */
  since: number;
  /** COMMIT was sent. */
  committed: boolean;
}

export class PostgresRecord implements SystemOfRecord {
  private tokens = 0;
  /**
   * Starts this process's tokens: the slot's name and a random part, so that a transaction of the
   * node's previous process (committed, not yet applied when it died, replayed after the restart)
   * cannot resolve a new write's wait with a token of the same number.
   */
  private readonly tokenPrefix: string;
  private commits = 0;
  private readonly waits = { buckets: new Array<number>(APPLY_WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
  /** The transaction of each write in progress, by the locks it holds (no AsyncLocalStorage: in Node 20 it slows every promise). */
  private readonly sessions = new WeakMap<HeldLocks, Session>();
  /** When each contended entry's write at once last found the copy behind (performance.now()), oldest first. */
  private readonly contendedAt = new Map<string, number>();
  /** Writes that locked their entries first. */
  private lockedFirst = 0;
  /** Writes at once, committed together when they arrive together. */
  private readonly batches = new CommitBatcher(() => this.connect());

  constructor(
    private readonly pool: pg.Pool, private readonly applier: Applier,
    private readonly local: { records(keys: readonly string[]): Promise<(Buffer | undefined)[]> },
    private readonly options: { readonly log: RecordLog; readonly maxStalenessMillis: number },
    readonly failures?: SharedFailures,
  ) {
    this.tokenPrefix = `${applier.slot}:${randomBytes(6).toString('hex')}`;
  }

  get clock(): number {
    return this.applier.clock;
  }

  stats(): Omit<RecordStats, 'staleRetries'> {
    return { commits: this.commits, transactions: this.batches.transactions, lockedFirst: this.lockedFirst, applyWait: this.waits, silentSeconds: (Date.now() - this.applier.lastContact) / 1000 };
  }

  staleReason(): string | undefined {
    const silent = Date.now() - this.applier.lastContact;
    if (silent <= this.options.maxStalenessMillis) return undefined;
    return `the PostgreSQL store has not answered for ${Math.round(silent / 1000)} s (more than --max-staleness ${this.options.maxStalenessMillis / 1000} s): this node's copy may be stale`;
  }

  async around<T>(keys: readonly string[], critical: () => Promise<T>, held: HeldLocks): Promise<T> {
    const session: Session = { client: undefined, locked: new Set(), since: held.since, committed: false };
    let broken = false;
    try {
      if (this.isContended(keys)) await this.lockFirst(session, keys);
      this.sessions.set(held, session);
      return await critical();
    } catch (error) {
      // Only PostgreSQL's own refusal leaves the connection usable; a socket error (ECONNRESET has a code too) does not.
      broken = !(error instanceof StaleCopy || error instanceof DirectoryError) && !refusedByPostgres(error);
      throw failure(error, session.committed);
    } finally {
      this.sessions.delete(held);
      await this.end(session, broken);
    }
  }

  async commit(ops: readonly BatchOp[], held: HeldLocks | undefined): Promise<void> {
    const changes = rowChanges(ops);
    if (changes.entries.size === 0 && changes.settings.size === 0) return;
    const session = held && this.sessions.get(held);
    if (!held || !session) {
      // A write holding no entry locks (a setting): its own transaction, locking what it changes.
      const keys = [...changes.entries.keys()].sort();
      const own: HeldLocks = { keys: new Set(keys), since: this.applier.clock, tryAdd: () => false };
      await this.around(keys, () => this.commit(ops, own), own);
      return;
    }
    const keys = [...new Set([...held.keys, ...changes.entries.keys()])].sort();
    const records = await this.local.records(keys);
    const local = new Map(keys.map((key, i) => [key, records[i]]));
    const unchecked = keys.filter((key) => !session.locked.has(key));
    // A version the copy held for a moment (A then B then A again, not yet all applied) could have been read: run again.
    if (this.applier.changedSince(session.locked, session.since) || this.applier.changedSince(unchecked, held.since)) {
      this.contended(keys);
      throw new StaleCopy('the local copy changed under the write');
    }
    const digests = unchecked.map((key) => digestOf(local.get(key)));
    const token = `${this.tokenPrefix}:${(this.tokens += 1)}`;
    const applied = this.applier.waitFor(token, APPLY_WAIT_MILLIS);
    session.committed = true;
    try {
      // One round trip. A statement that fails skips the rest and aborts the transaction.
      const write = { checked: unchecked, digests, token, local, changes };
      if (session.client) await session.client.query(transactionText([write], true));
      else await this.batches.commit(write);
    } catch (error) {
      applied.cancel();
      const code = (error as { code?: string }).code;
      if (refusedByPostgres(error)) session.committed = false; // nothing committed
      if (code !== undefined && CONFLICTS.has(code)) this.contended(keys);
      throw error;
    }
    await this.afterCommit(token, applied.done);
  }

  /**
   * Resolves once the local copy holds every transaction committed before: a mark in the stream,
   * in a transaction of its own (its commit flushes the WAL, so the stream carries it at once).
   */
  async catchUp(): Promise<void> {
    const token = `${this.tokenPrefix}:mark:${(this.tokens += 1)}`;
    const applied = this.applier.waitFor(token, APPLY_WAIT_MILLIS);
    try {
      await this.pool.query(tokenStatement(token));
    } catch (error) {
      applied.cancel();
      throw unreachable(error);
    }
    await applied.done;
  }

  private async afterCommit(token: string, applied: Promise<boolean>): Promise<void> {
    this.commits += 1;
    const committed = performance.now();
    const done = await applied;
    this.countWait((performance.now() - committed) / 1000);
    if (!done) this.options.log.warn({ token, waitedMs: APPLY_WAIT_MILLIS }, 'a write committed to PostgreSQL was not applied to the local copy in time; answered anyway');
  }

  private countWait(seconds: number): void {
    const bucket = APPLY_WAIT_BUCKETS.findIndex((bound) => seconds <= bound);
    this.waits.buckets[bucket === -1 ? APPLY_WAIT_BUCKETS.length : bucket]! += 1;
    this.waits.sum += seconds;
    this.waits.count += 1;
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw unreachable(error);
    }
  }

  /** Opens the write's transaction locked first: its entries' rows locked and the local copy brought to them. */
  private async lockFirst(session: Session, keys: readonly string[]): Promise<void> {
    session.client = await this.connect();
    session.since = await this.beginLocked(session.client, keys);
    session.locked = new Set(keys);
    this.lockedFirst += 1;
  }

  /** Ends the write's transaction, if it opened one: rolled back unless committed (a refused write, or one that wrote nothing). */
  private async end(session: Session, broken: boolean): Promise<void> {
    const client = session.client;
    if (!client) return;
    let lost = broken;
    if (!session.committed && !lost) await client.query('ROLLBACK').catch(() => { lost = true; });
    client.release(lost);
  }

  /** Whether a write of these entries should lock them first: one of them was contended lately. */
  private isContended(keys: readonly string[]): boolean {
    const now = performance.now();
    return keys.some((key) => (this.contendedAt.get(key) ?? -Infinity) > now - CONTENDED_MILLIS);
  }

  /** These entries' write found the copy behind: their writes lock first for a while. */
  private contended(keys: readonly string[]): void {
    const now = performance.now();
    for (const key of keys) {
      this.contendedAt.delete(key);
      this.contendedAt.set(key, now);
    }
    for (const oldest of this.contendedAt.keys()) {
      if (this.contendedAt.size <= CONTENDED_KEYS) break;
      this.contendedAt.delete(oldest);
    }
  }

  /**
   * BEGIN and the lock of the write's entries, in one round trip; when the local copy is behind
   * on one, waits for it to catch up (the rows cannot move now). Resolves with the applier's
   * clock read before the comparison that found them equal.
   */
  private async beginLocked(client: pg.PoolClient, keys: readonly string[]): Promise<number> {
    if (keys.length === 0) {
      await client.query('BEGIN');
      return this.applier.clock;
    }
    const results = await client.query<{ key: string; digest: string }>(`BEGIN; ${lockStatement(keys)}`) as unknown as pg.QueryResult<{ key: string; digest: string }>[];
    const stored = new Map(results[1]!.rows.map((row) => [row.key, row.digest]));
    const deadline = performance.now() + APPLY_WAIT_MILLIS;
    // The versions locked are committed, so the stream brings them: wait for them transaction by transaction.
    for (;;) {
      const clock = this.applier.clock; // read before the comparison, so an apply during it is not missed
      const found = await this.compareLocally(keys, stored);
      if (found === 'same') return clock;
      // An entry the copy holds and the lock did not return may have been committed while the lock waited (the
      // statement's snapshot is older than its locks): the copy may be ahead, and waiting would not help.
      if (found === 'unlocked') throw new StaleCopy('the local copy holds an entry the rows locked lack');
      const left = deadline - performance.now();
      if (left <= 0) throw new StaleCopy('the local copy did not catch up with the locked entries');
      await this.applier.waitApplied(clock, left);
    }
  }

  /** How the local copy compares with the rows locked: the same, behind, or holding an entry they lack. */
  private async compareLocally(keys: readonly string[], stored: ReadonlyMap<string, string>): Promise<'same' | 'behind' | 'unlocked'> {
    const records = await this.local.records(keys);
    if (keys.some((key, i) => records[i] !== undefined && !stored.has(key))) return 'unlocked';
    return keys.every((key, i) => digestOf(records[i]) === stored.get(key)) ? 'same' : 'behind';
  }
}

const digestOf = (record: Buffer | undefined): string | undefined => (record === undefined ? undefined : digest(record));

/** What a failed write answers: StaleCopy and directory errors as they are; a conflict is StaleCopy; else unavailable, or `other` once COMMIT was sent. */
function failure(error: unknown, committing: boolean): Error {
  if (error instanceof StaleCopy || error instanceof DirectoryError) return error;
  const code = (error as { code?: string }).code;
  if (code !== undefined && CONFLICTS.has(code)) return new StaleCopy(`PostgreSQL refused the write (${code}): the local copy was behind`);
  if (committing) {
    return new DirectoryError('other', `entry update failed: the connection to PostgreSQL was lost during COMMIT, so this write may or may not be stored (${(error as Error).message})`);
  }
  return unreachable(error);
}

/** PostgreSQL could not be reached, or failed before the commit: nothing was written. */
export function unreachable(error: unknown): DirectoryError {
  if (error instanceof DirectoryError) return error;
  return new DirectoryError('unavailable', `the PostgreSQL store is unavailable: ${(error as Error).message}`);
}
