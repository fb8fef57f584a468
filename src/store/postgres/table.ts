/**
 * The entries table of a PostgreSQL store used directly, without being a node of it: what
 * `import-ldif --store` loads into (a BulkTarget for bulk.ts) and `export-ldif --store` reads.
 *
 * A bulk load's batch keeps, of the LevelDB operations a plan makes, the entry records and the
 * naming contexts (changes.ts: rowChanges) and sends them in one COPY, a transaction of its own,
 * so each node applies a batch as one LevelDB batch; the index, one-level and group keys are
 * the nodes' to derive. Existence reads go on a second connection while a batch is written.
 * COPY rather than INSERT ... SELECT FROM unnest: 100,000 users spent 6.1 s in the batches'
 * writes against 6.9 s (5.2 against 6.5 with batches of 5,000), the whole import 7.5 s both
 * ways (its two cores shared by the planning threads and PostgreSQL): COPY leaves more of them.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { decodeEntry } from '../codec.js';
import type { Entry } from '../entry.js';
import { StoreError } from '../errors.js';
import { subtreeRange } from '../keys.js';
import type { BatchOp } from '../batch-ops.js';
import { parentColumn, rowChanges, type EntryRow } from './changes.js';
import { ENTRIES, openStorePool } from './schema.js';

/** One connection writes batches while the other reads which keys exist. */
const CONNECTIONS = 2;
const CONNECT_TIMEOUT_MILLIS = 5000;
/** Rows fetched at a time when reading a subtree. */
const FETCH_ROWS = 1000;
/** Rows of COPY text sent to PostgreSQL at a time. */
const COPY_CHUNK_ROWS = 500;

/** A text field of COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyText(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (char) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[char]!);
}

/** One row of COPY's text format: key, parent (\N for NULL), record (bytea in hex). */
function copyLine(key: string, row: EntryRow): string {
  const parent = parentColumn(key, row);
  return `${copyText(key)}\t${parent === null ? '\\N' : copyText(parent)}\t\\\\x${row.record.toString('hex')}\n`;
}

/** The rows a bulk load's batch puts; a bulk load never deletes. */
function putRows(ops: readonly BatchOp[]): Map<string, EntryRow> {
  const rows = new Map<string, EntryRow>();
  for (const [key, row] of rowChanges(ops).entries) {
    if (row === null) throw new Error(`a bulk load only adds entries (it would delete ${key})`);
    rows.set(key, row);
  }
  return rows;
}

/** PostgreSQL's code for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

function failure(what: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  if ((error as { code?: string }).code === UNDEFINED_TABLE) return new StoreError(`${what}: this database holds no leveldap store (no table ${ENTRIES}; import-ldif --store or a node makes it)`);
  return new StoreError(`${what}: ${(error as Error).message}`);
}

export class EntriesTable {
  /** The PostgreSQL store keeps no index keys: the nodes derive them. */
  readonly indexed: ReadonlySet<string> = new Set();

  private constructor(private readonly pool: pg.Pool) {}

  /** Connects; to load, creates the tables and the publication when missing (ensureSchema), a reader does not. */
  static async open(url: string, use: 'load' | 'read'): Promise<EntriesTable> {
    try {
      // An idle connection that fails is dropped; the next query says why.
      return new EntriesTable(await openStorePool(url, { max: CONNECTIONS, connectMillis: CONNECT_TIMEOUT_MILLIS, schema: use === 'load', idleError: () => {} }));
    } catch (error) {
      throw failure('cannot use the PostgreSQL store', error);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async hasEntries(): Promise<boolean> {
    const { rows } = await this.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${ENTRIES}) AS found`, []);
    return rows[0]!.found;
  }

  /** The naming contexts (rows without a parent), as their DNs were written. */
  async suffixes(): Promise<string[]> {
    const { rows } = await this.query<{ record: Buffer }>(`SELECT record FROM ${ENTRIES} WHERE parent IS NULL ORDER BY key`, []);
    return rows.map((row) => decodeEntry(row.record).dn);
  }

  async existing(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await this.query<{ key: string }>(`SELECT key FROM ${ENTRIES} WHERE key = ANY($1::text[])`, [keys]);
    return new Set(rows.map((row) => row.key));
  }

  /** Writes a bulk load's batch (see the header); `sync` is moot: every COPY commits. */
  async write(ops: readonly BatchOp[], _sync: boolean): Promise<void> {
    const rows = putRows(ops);
    if (rows.size === 0) return;
    const client = await this.connect();
    let ok = false;
    try {
      await pipeline(Readable.from(copyChunks(rows)), client.query(copyFrom(`COPY ${ENTRIES} (key, parent, record) FROM STDIN`)));
      ok = true;
    } catch (error) {
      throw failure('PostgreSQL refused a batch of the load', error);
    } finally {
      client.release(!ok);
    }
  }

  async getByKey(key: string): Promise<Entry | undefined> {
    const { rows } = await this.query<{ record: Buffer }>(`SELECT record FROM ${ENTRIES} WHERE key = $1`, [key]);
    return rows[0] && decodeEntry(rows[0].record);
  }

  /** The entry `key` and everything below it ('' is the whole store), parents before children, as of one snapshot. */
  async *subtree(key: string): AsyncGenerator<Entry> {
    const range = subtreeRange(key);
    const [where, params] = key === '' ? ['', []] : ['WHERE key >= $1 AND key < $2', [range.gte.slice(2), range.lt.slice(2)]];
    const client = await this.connect();
    let ok = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`DECLARE exported NO SCROLL CURSOR FOR SELECT record FROM ${ENTRIES} ${where} ORDER BY key`, params);
      for (;;) {
        const { rows } = await client.query<{ record: Buffer }>(`FETCH ${FETCH_ROWS} FROM exported`);
        if (rows.length === 0) break;
        for (const row of rows) yield decodeEntry(row.record);
      }
      await client.query('COMMIT');
      ok = true;
    } catch (error) {
      throw failure('cannot read the PostgreSQL store', error);
    } finally {
      client.release(!ok); // a reader that stopped early leaves its transaction open: that connection is closed
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw failure('cannot reach the PostgreSQL store', error);
    }
  }

  private async query<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, params);
    } catch (error) {
      throw failure('cannot read the PostgreSQL store', error);
    }
  }
}

/** The batch's COPY text, COPY_CHUNK_ROWS rows a chunk. */
function* copyChunks(rows: ReadonlyMap<string, EntryRow>): Generator<string> {
  let lines: string[] = [];
  for (const [key, row] of rows) {
    lines.push(copyLine(key, row));
    if (lines.length < COPY_CHUNK_ROWS) continue;
    yield lines.join('');
    lines = [];
  }
  if (lines.length > 0) yield lines.join('');
}
