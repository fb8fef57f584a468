/**
 * The SQL of a node's write (record.ts) as text with literals, so that several statements go to
 * PostgreSQL in one round trip (a simple query may hold many; a query with parameters holds
 * one): BEGIN, the check of the entries the write read (or BEGIN with their lock before it runs),
 * then the token, the rows and COMMIT. Texts
 * are quoted with pg's escapeLiteral, records sent as hex (decode(..., 'hex')), so no value is
 * ever read as SQL. Pure.
 */
import { escapeLiteral } from 'pg';
import { parentColumn, type RowChanges } from './changes.js';
import { ENTRIES, LOCK_EQUAL, MESSAGE_PREFIX, SETTINGS } from './schema.js';

const text = (value: string | null): string => (value === null ? 'NULL' : escapeLiteral(value));
const bytes = (value: Buffer): string => `decode('${value.toString('hex')}', 'hex')`;
const keyArray = (keys: readonly string[]): string => `ARRAY[${keys.map(text).join(', ')}]::text[]`;

/** SELECT ... FOR UPDATE of these entries' rows, in key order: their keys and records' SHA-256 (hex). */
export function lockStatement(keys: readonly string[]): string {
  return `SELECT key, encode(sha256(record), 'hex') AS digest FROM ${ENTRIES} WHERE key = ANY(${keyArray(keys)}) ORDER BY key FOR UPDATE`;
}

/**
 * Locks these entries' rows (in key order; at once or not at all when `wait` is false) and aborts
 * the transaction (STALE_ROW) unless each holds the record with the digest given, or is absent
 * where the digest is undefined.
 */
export function lockEqualStatement(keys: readonly string[], digests: readonly (string | undefined)[], wait: boolean): string {
  const expected = digests.map((digest) => text(digest ?? null));
  return `SELECT ${LOCK_EQUAL}(${keyArray(keys)}, ARRAY[${expected.join(', ')}]::text[], ${wait})`;
}

/** The logical decoding message carrying a write's token, in its transaction. */
export function tokenStatement(token: string): string {
  return tokensStatement([token]);
}

/** Between the tokens of one message (a token holds the slot's name, a hex part and numbers: no space). */
const TOKEN_SEPARATOR = ' ';

/**
 * The message carrying the tokens of the writes committed together (commit-batch.ts): one for
 * them all, so the stream brings one message a transaction, not one a write.
 */
export function tokensStatement(tokens: readonly string[]): string {
  return `SELECT pg_logical_emit_message(true, ${text(MESSAGE_PREFIX)}, ${text(tokens.join(TOKEN_SEPARATOR))})`;
}

/** The tokens a message carries (tokensStatement). */
export function tokensOf(content: Uint8Array): string[] {
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8').split(TOKEN_SEPARATOR);
}

/** The statements that change the rows: deletes, updates (entries the copy has), inserts, settings. */
export function rowStatements(local: ReadonlyMap<string, Buffer | undefined>, changes: RowChanges): string[] {
  const deleted: string[] = [];
  const updated: string[] = [];
  const inserted: string[] = [];
  for (const [key, row] of changes.entries) {
    if (row === null) deleted.push(key);
    else if (local.get(key) !== undefined) updated.push(`(${text(key)}, ${bytes(row.record)})`);
    else inserted.push(`(${text(key)}, ${text(parentColumn(key, row))}, ${bytes(row.record)})`);
  }
  const statements: string[] = [];
  if (deleted.length > 0) statements.push(`DELETE FROM ${ENTRIES} WHERE key = ANY(${keyArray(deleted)})`);
  if (updated.length > 0) statements.push(`UPDATE ${ENTRIES} AS e SET record = u.record FROM (VALUES ${updated.join(', ')}) AS u(key, record) WHERE e.key = u.key`);
  if (inserted.length > 0) statements.push(`INSERT INTO ${ENTRIES} (key, parent, record) VALUES ${inserted.join(', ')}`);
  for (const [name, value] of changes.settings) {
    statements.push(value === null ? `DELETE FROM ${SETTINGS} WHERE name = ${text(name)}`
      : `INSERT INTO ${SETTINGS} (name, value) VALUES (${text(name)}, ${text(value)}) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`);
  }
  return statements;
}
