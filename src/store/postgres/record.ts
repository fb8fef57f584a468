/**
 * Writes on a node of the PostgreSQL store (docs/scale-out.md). A write runs as it does on one
 * LevelDB (writes.ts: its locks, its reads of the local copy, its checks, its batch); its batch
 * is then committed here instead, in one PostgreSQL transaction:
 *
 * 1. The entries the write holds locks on and the entries it changes are locked in PostgreSQL
 *    (SELECT ... FOR UPDATE) and compared with the local copy (sha256 of each record; a missing
 *    row with a missing record). If one differs, or the applier changed one of them since the
 *    write took its locks, the local copy was behind: StaleCopy, and the write runs again once
 *    the copy has caught up (DirectoryStore.retrying). So every check a write made holds in
 *    PostgreSQL at its commit, and no update is lost between nodes.
 * 2. The changed rows are written (the parent foreign key refuses an entry under a parent
 *    deleted meanwhile, or a parent deleted under a new child: StaleCopy too), with a logical
 *    decoding message carrying the write's token.
 * 3. After COMMIT the write waits until the applier has applied the transaction with its token,
 *    so the client reads its own write on this node.
 *
 * PostgreSQL unreachable: unavailable (52) before the commit is sent; a connection lost during
 * COMMIT answers `other`, as a LevelDB write whose outcome is unknown does (store.ts).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DirectoryError, StaleCopy } from '../errors.js';
import type { Holding } from '../mutex.js';
import { APPLY_WAIT_BUCKETS, type BatchOp, type RecordStats, type SharedFailures, type SystemOfRecord } from '../store.js';
import type { Applier } from './applier.js';
import { parentColumn, rowChanges, type RowChanges } from './changes.js';
import { ENTRIES, MESSAGE_PREFIX, SETTINGS } from './schema.js';

/** How long a committed write waits for the local copy to apply it before answering anyway (a warning is logged). */
const APPLY_WAIT_MILLIS = 10_000;
/** PostgreSQL's codes for a unique key and a foreign key violated: another node got there first. */
const CONFLICTS = new Set(['23505', '23503']);

const digest = (record: Buffer): string => createHash('sha256').update(record).digest('hex');

export interface RecordLog {
  warn(details: object, message: string): void;
}

export class PostgresRecord implements SystemOfRecord {
  private tokens = 0;
  private commits = 0;
  private readonly waits = { buckets: new Array<number>(APPLY_WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };

  constructor(
    private readonly pool: pg.Pool, private readonly applier: Applier,
    private readonly local: { records(keys: readonly string[]): Promise<(Buffer | undefined)[]> },
    private readonly options: { readonly log: RecordLog; readonly maxStalenessMillis: number },
    readonly failures?: SharedFailures,
  ) {}

  get clock(): number {
    return this.applier.clock;
  }

  stats(): RecordStats {
    return { commits: this.commits, staleRetries: 0, applyWait: this.waits, silentSeconds: (Date.now() - this.applier.lastContact) / 1000 };
  }

  staleReason(): string | undefined {
    const silent = Date.now() - this.applier.lastContact;
    if (silent <= this.options.maxStalenessMillis) return undefined;
    return `the PostgreSQL store has not answered for ${Math.round(silent / 1000)} s (more than --max-staleness ${this.options.maxStalenessMillis / 1000} s): this node's copy may be stale`;
  }

  async commit(ops: readonly BatchOp[], holding: Holding | undefined): Promise<void> {
    const changes = rowChanges(ops);
    if (changes.entries.size === 0 && changes.settings.size === 0) return;
    const keys = [...new Set([...(holding?.keys ?? []), ...changes.entries.keys()])].sort();
    const since = holding?.since ?? this.applier.clock;
    const records = await this.local.records(keys);
    if (this.applier.changedSince(keys, since)) throw new StaleCopy('the local copy changed under the write');
    const local = new Map(keys.map((key, i) => [key, records[i]]));
    const client = await this.connect();
    const token = `${this.applier.slot}:${(this.tokens += 1)}`;
    const applied = this.applier.waitFor(token, APPLY_WAIT_MILLIS);
    try {
      await this.transaction(client, keys, local, changes, token);
      client.release();
    } catch (error) {
      applied.cancel();
      client.release(!(error instanceof StaleCopy)); // a connection that failed is not reused
      throw error;
    }
    this.commits += 1;
    const committed = performance.now();
    const done = await applied.done;
    this.countWait((performance.now() - committed) / 1000);
    if (!done) this.options.log.warn({ token, waitedMs: APPLY_WAIT_MILLIS }, 'a write committed to PostgreSQL was not applied to the local copy in time; answered anyway');
  }

  private countWait(seconds: number): void {
    const bucket = APPLY_WAIT_BUCKETS.findIndex((bound) => seconds <= bound);
    this.waits.buckets[bucket === -1 ? APPLY_WAIT_BUCKETS.length : bucket]! += 1;
    this.waits.sum += seconds;
    this.waits.count += 1;
  }

  /** Resolves once the local copy holds every transaction committed before: a mark in the stream, non-transactional. */
  async catchUp(): Promise<void> {
    const token = `${this.applier.slot}:mark:${(this.tokens += 1)}`;
    const applied = this.applier.waitFor(token, APPLY_WAIT_MILLIS);
    try {
      await this.pool.query('SELECT pg_logical_emit_message(false, $1, $2)', [MESSAGE_PREFIX, token]);
    } catch (error) {
      applied.cancel();
      throw unreachable(error);
    }
    await applied.done;
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw unreachable(error);
    }
  }

  private async transaction(client: pg.PoolClient, keys: readonly string[], local: ReadonlyMap<string, Buffer | undefined>, changes: RowChanges, token: string): Promise<void> {
    let committing = false;
    try {
      await client.query('BEGIN');
      await this.compare(client, keys, local);
      await this.writeRows(client, local, changes);
      await client.query('SELECT pg_logical_emit_message(true, $1, $2)', [MESSAGE_PREFIX, token]);
      committing = true;
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (error instanceof StaleCopy) throw error;
      const code = (error as { code?: string }).code;
      if (code !== undefined && CONFLICTS.has(code)) throw new StaleCopy(`PostgreSQL refused the write (${code}): the local copy was behind`);
      if (committing) {
        throw new DirectoryError('other', `entry update failed: the connection to PostgreSQL was lost during COMMIT, so this write may or may not be stored (${(error as Error).message})`);
      }
      throw unreachable(error);
    }
  }

  /** Locks the rows and checks that they hold what the local copy holds. */
  private async compare(client: pg.PoolClient, keys: readonly string[], local: ReadonlyMap<string, Buffer | undefined>): Promise<void> {
    if (keys.length === 0) return;
    const { rows } = await client.query<{ key: string; digest: string }>(
      `SELECT key, encode(sha256(record), 'hex') AS digest FROM ${ENTRIES} WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`, [keys],
    );
    const stored = new Map(rows.map((row) => [row.key, row.digest]));
    for (const key of keys) {
      const record = local.get(key);
      if ((record === undefined ? undefined : digest(record)) !== stored.get(key)) throw new StaleCopy(`entry ${key} differs from the PostgreSQL store`);
    }
  }

  private async writeRows(client: pg.PoolClient, local: ReadonlyMap<string, Buffer | undefined>, changes: RowChanges): Promise<void> {
    const deleted: string[] = [];
    const updated: { key: string; record: Buffer }[] = [];
    const inserted: { key: string; parent: string | null; record: Buffer }[] = [];
    for (const [key, row] of changes.entries) {
      if (row === null) deleted.push(key);
      else if (local.get(key) !== undefined) updated.push({ key, record: row.record });
      else inserted.push({ key, parent: parentColumn(key, row), record: row.record });
    }
    if (deleted.length > 0) await client.query(`DELETE FROM ${ENTRIES} WHERE key = ANY($1::text[])`, [deleted]);
    if (updated.length > 0) {
      await client.query(
        `UPDATE ${ENTRIES} AS e SET record = u.record FROM unnest($1::text[], $2::bytea[]) AS u(key, record) WHERE e.key = u.key`,
        [updated.map((row) => row.key), updated.map((row) => row.record)],
      );
    }
    if (inserted.length > 0) {
      await client.query(
        `INSERT INTO ${ENTRIES} (key, parent, record) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])`,
        [inserted.map((row) => row.key), inserted.map((row) => row.parent), inserted.map((row) => row.record)],
      );
    }
    for (const [name, value] of changes.settings) {
      if (value === null) await client.query(`DELETE FROM ${SETTINGS} WHERE name = $1`, [name]);
      else await client.query(`INSERT INTO ${SETTINGS} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [name, value]);
    }
  }
}

/** PostgreSQL could not be reached, or failed before the commit: nothing was written. */
export function unreachable(error: unknown): DirectoryError {
  if (error instanceof DirectoryError) return error;
  return new DirectoryError('unavailable', `the PostgreSQL store is unavailable: ${(error as Error).message}`);
}
