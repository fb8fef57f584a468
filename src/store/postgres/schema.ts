/**
 * The PostgreSQL system of record (docs/scale-out.md): what it holds, and the checks a node
 * makes before it uses it.
 *
 *   leveldap_entries   key (the dnKey, keys.ts; C collation, so parents sort before children),
 *                      parent (the parent's key; NULL for a naming context; a deferred foreign
 *                      key: no entry without its parent, no parent deleted under its children),
 *                      record (the entry as codec.ts encodes it, the bytes LevelDB holds)
 *   leveldap_settings  name, value: what DirectoryStore.putSetting keeps (the admin password)
 *   leveldap_failures  account (normalized DN), node (slot), at_ms: failed binds, shared by the nodes
 *                      for lockout (failures.ts); not streamed
 *   leveldap_lock_equal(keys, digests, wait)  a write's check (record.ts): locks the entries' rows
 *                      in key order and raises STALE_ROW (LD001) unless each row's record has the
 *                      SHA-256 given (NULL: no row), so a write that read an entry's old version
 *                      aborts in the same round trip as its commit
 *
 * The publication `leveldap` streams the first two to every node (pgoutput); the nodes derive
 * their index, one-level, naming-context and group keys locally (applier.ts).
 */
import pg from 'pg';
import { StoreError } from '../errors.js';

export const PUBLICATION = 'leveldap';
/** The prefix of the logical decoding messages nodes emit (a write's token, a catch-up mark). */
export const MESSAGE_PREFIX = 'leveldap';
/** Replication slots of leveldap nodes are named with this prefix (`leveldap nodes` lists them). */
export const SLOT_PREFIX = 'leveldap_';

export const ENTRIES = 'leveldap_entries';
export const SETTINGS = 'leveldap_settings';
export const FAILURES = 'leveldap_failures';
export const LOCK_EQUAL = 'leveldap_lock_equal';
/** The SQLSTATE LOCK_EQUAL raises when a row differs from the local copy a write read. */
export const STALE_ROW = 'LD001';

const TABLES = [
  `CREATE TABLE IF NOT EXISTS ${ENTRIES} (
     key text COLLATE "C" PRIMARY KEY,
     parent text COLLATE "C" REFERENCES ${ENTRIES} (key) DEFERRABLE INITIALLY DEFERRED,
     record bytea NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS ${ENTRIES}_parent ON ${ENTRIES} (parent)`,
  `CREATE TABLE IF NOT EXISTS ${SETTINGS} (name text PRIMARY KEY, value text NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${FAILURES} (account text COLLATE "C" NOT NULL, node text NOT NULL, at_ms bigint NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS ${FAILURES}_account ON ${FAILURES} (account, at_ms)`,
  `CREATE OR REPLACE FUNCTION ${LOCK_EQUAL}(entry_keys text[], entry_digests text[], wait_for_locks boolean) RETURNS void
   LANGUAGE plpgsql AS $body$
   DECLARE
     differing text;
   BEGIN
     IF wait_for_locks THEN
       PERFORM FROM ${ENTRIES} WHERE key = ANY(entry_keys) ORDER BY key FOR UPDATE;
     ELSE
       PERFORM FROM ${ENTRIES} WHERE key = ANY(entry_keys) ORDER BY key FOR UPDATE NOWAIT;
     END IF;
     SELECT expected.key INTO differing
       FROM unnest(entry_keys, entry_digests) AS expected(key, digest) LEFT JOIN ${ENTRIES} AS stored ON stored.key = expected.key
       WHERE encode(sha256(stored.record), 'hex') IS DISTINCT FROM expected.digest
       LIMIT 1;
     IF FOUND THEN
       RAISE EXCEPTION 'entry % differs from the local copy the write read', differing USING ERRCODE = '${STALE_ROW}';
     END IF;
   END
   $body$`,
];

/** An advisory lock number: nodes starting together create the tables one at a time. */
const SCHEMA_LOCK = 0x6c646170;

/** Creates the tables and the publication when missing; refuses a server without logical decoding. */
export async function ensureSchema(client: pg.ClientBase): Promise<void> {
  const level = (await client.query<{ wal_level: string }>('SHOW wal_level')).rows[0]?.wal_level;
  if (level !== 'logical') {
    throw new StoreError(`the PostgreSQL server has wal_level=${level ?? 'unknown'}; leveldap nodes stream from it and need wal_level=logical (postgresql.conf, then a restart)`);
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    for (const statement of TABLES) await client.query(statement);
    const published = await client.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [PUBLICATION]);
    if (published.rowCount === 0) await client.query(`CREATE PUBLICATION ${PUBLICATION} FOR TABLE ${ENTRIES}, ${SETTINGS}`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/**
 * A pool of connections to the store, the tables and publication made first when `schema` (a
 * node, a load; a reader does not); refused with a StoreError saying why. `idleError`: told of
 * an idle connection that fails (it is dropped; the next query says why). `queryMillis`: a query
 * not answered in that time fails ("Query read timeout"; its connection is then dropped by the
 * caller), so a PostgreSQL that hangs, or a network that drops everything silently, cannot hold a
 * write for ever. TCP keepalive finds a peer that is gone on connections that idle.
 */
export async function openStorePool(
  url: string,
  options: { readonly max: number; readonly connectMillis: number; readonly queryMillis?: number; readonly schema: boolean; readonly idleError: (error: Error) => void },
): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: url, max: options.max, connectionTimeoutMillis: options.connectMillis, keepAlive: true,
    ...(options.queryMillis !== undefined && { query_timeout: options.queryMillis }),
  });
  pool.on('error', options.idleError);
  try {
    const client = await pool.connect();
    try {
      if (options.schema) await ensureSchema(client);
    } finally {
      client.release();
    }
    return pool;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** What names one PostgreSQL database, so a node's local copy is never fed from another. */
export async function storeIdentity(client: pg.ClientBase): Promise<string> {
  const row = (await client.query<{ id: string }>(
    "SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database() AS id",
  )).rows[0];
  return row!.id;
}
