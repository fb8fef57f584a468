/**
 * Writes on a node of the PostgreSQL store (docs/scale-out.md). A write runs as it does on one
 * LevelDB (writes.ts: its entry locks, its reads of the local copy, its checks, its batch), in
 * one PostgreSQL transaction opened as soon as its entry locks are taken (around):
 *
 * 1. The entries it locked are locked in PostgreSQL too (SELECT ... FOR UPDATE, in key order)
 *    and compared with the local copy (sha256 of each record; a missing row with a missing
 *    record). If the copy is behind, the node waits until the applier has brought it to the
 *    versions locked (they are committed, so the stream carries them; locked, they cannot move
 *    meanwhile). Then the write reads its entries: what
 *    it checks is what PostgreSQL holds, and no update is lost between nodes.
 * 2. At commit, entries the write took later (a subtree's, locked without waiting) and entries
 *    it creates are locked and compared the same way, without waiting (NOWAIT); the changed rows
 *    are written (the parent foreign key refuses an entry under a parent deleted meanwhile, and
 *    a parent deleted under a new child), with a logical decoding message carrying the write's
 *    token. Any of these finding the copy behind is StaleCopy: the write runs again once the
 *    copy caught up (DirectoryStore.retrying).
 * 3. After COMMIT the write waits until the applier has applied its transaction, so the client
 *    reads its own write on this node.
 *
 * PostgreSQL unreachable: unavailable (52), nothing written; a connection lost during COMMIT
 * answers `other` (the write may or may not be stored), as a LevelDB write whose outcome is
 * unknown does (store.ts).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DirectoryError, StaleCopy } from '../errors.js';
import type { HeldLocks } from '../mutex.js';
import type { BatchOp } from '../batch-ops.js';
import { APPLY_WAIT_BUCKETS, type RecordStats, type SharedFailures, type SystemOfRecord } from '../system-of-record.js';
import type { Applier } from './applier.js';
import { rowChanges } from './changes.js';
import { lockStatement, rowStatements, tokenStatement } from './statements.js';

/** How long a committed write waits for the local copy to apply it before answering anyway (a warning is logged). */
const APPLY_WAIT_MILLIS = 10_000;
/** PostgreSQL's codes for another node having got there first: unique key, foreign key, a row locked (NOWAIT), a deadlock. */
const CONFLICTS = new Set(['23505', '23503', '55P03', '40P01']);

const digest = (record: Buffer): string => createHash('sha256').update(record).digest('hex');

export interface RecordLog {
  warn(details: object, message: string): void;
}

/** A write's PostgreSQL transaction, from its entry locks to its commit. */
interface Session {
  readonly client: pg.PoolClient;
  /** Entries locked in PostgreSQL and found equal in the local copy when the write started... */
  readonly locked: ReadonlySet<string>;
  /** ...and the applier's clock then: if one of them changes in the copy after this, the write read a version it must not use. */
  since: number;
  /** COMMIT was sent. */
  committed: boolean;
}

export class PostgresRecord implements SystemOfRecord {
  private tokens = 0;
  private commits = 0;
  private readonly waits = { buckets: new Array<number>(APPLY_WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
  /** The transaction of each write in progress, by the locks it holds (no AsyncLocalStorage: in Node 20 it slows every promise). */
  private readonly sessions = new WeakMap<HeldLocks, Session>();

  constructor(
    private readonly pool: pg.Pool, private readonly applier: Applier,
    private readonly local: { records(keys: readonly string[]): Promise<(Buffer | undefined)[]> },
    private readonly options: { readonly log: RecordLog; readonly maxStalenessMillis: number },
    readonly failures?: SharedFailures,
  ) {}

  get clock(): number {
    return this.applier.clock;
  }

  stats(): Omit<RecordStats, 'staleRetries'> {
    return { commits: this.commits, applyWait: this.waits, silentSeconds: (Date.now() - this.applier.lastContact) / 1000 };
  }

  staleReason(): string | undefined {
    const silent = Date.now() - this.applier.lastContact;
    if (silent <= this.options.maxStalenessMillis) return undefined;
    return `the PostgreSQL store has not answered for ${Math.round(silent / 1000)} s (more than --max-staleness ${this.options.maxStalenessMillis / 1000} s): this node's copy may be stale`;
  }

  async around<T>(keys: readonly string[], critical: () => Promise<T>, held: HeldLocks): Promise<T> {
    const client = await this.connect();
    const session: Session = { client, locked: new Set(keys), since: 0, committed: false };
    let broken = false;
    try {
      session.since = await this.beginLocked(client, keys);
      this.sessions.set(held, session);
      const result = await critical();
      if (!session.committed) await client.query('ROLLBACK'); // the write was refused, or wrote nothing
      return result;
    } catch (error) {
      broken = !(error instanceof StaleCopy || error instanceof DirectoryError) && (error as { code?: string }).code === undefined;
      if (!session.committed && !broken) await client.query('ROLLBACK').catch(() => { broken = true; });
      throw failure(error, session.committed);
    } finally {
      this.sessions.delete(held);
      client.release(broken);
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
    const later = keys.filter((key) => !session.locked.has(key));
    // A version the copy held for a moment (A then B then A again, not yet all applied) could have been read: run again.
    const moved = this.applier.changedSince(session.locked, session.since) || this.applier.changedSince(later, held.since);
    if (moved) throw new StaleCopy('the local copy changed under the write');
    await this.lockEqual(session.client, later, local, ' NOWAIT');
    const token = `${this.applier.slot}:${(this.tokens += 1)}`;
    const applied = this.applier.waitFor(token, APPLY_WAIT_MILLIS);
    session.committed = true;
    try {
      // One round trip: the token, the rows, COMMIT. A statement that fails skips the rest and aborts the transaction.
      await session.client.query([tokenStatement(token), ...rowStatements(local, changes), 'COMMIT'].join('; '));
    } catch (error) {
      applied.cancel();
      if ((error as { code?: string }).code !== undefined) session.committed = false; // PostgreSQL refused it: nothing committed
      throw error;
    }
    await this.afterCommit(token, applied.done);
  }

  /**
   * Resolves once the local copy holds every transaction committed before: a mark in the stream,
   * in a transaction of its own (its commit flushes the WAL, so the stream carries it at once).
   */
  async catchUp(): Promise<void> {
    const token = `${this.applier.slot}:mark:${(this.tokens += 1)}`;
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
    const results = await client.query<{ key: string; digest: string }>(`BEGIN; ${lockStatement(keys, '')}`) as unknown as pg.QueryResult<{ key: string; digest: string }>[];
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

  /** Locks the rows of these entries and checks the local copy (given) holds them as PostgreSQL does. */
  private async lockEqual(client: pg.PoolClient, keys: readonly string[], local: ReadonlyMap<string, Buffer | undefined>, wait: '' | ' NOWAIT'): Promise<void> {
    if (keys.length === 0) return;
    const stored = await this.lockRows(client, keys, wait);
    for (const key of keys) if (digestOf(local.get(key)) !== stored.get(key)) throw new StaleCopy(`entry ${key} differs from the PostgreSQL store`);
  }

  /** SELECT ... FOR UPDATE of these entries' rows, in key order: their records' digests. */
  private async lockRows(client: pg.PoolClient, keys: readonly string[], wait: '' | ' NOWAIT'): Promise<Map<string, string>> {
    const { rows } = await client.query<{ key: string; digest: string }>(lockStatement(keys, wait));
    return new Map(rows.map((row) => [row.key, row.digest]));
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
