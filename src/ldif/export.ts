/** The whole tree, or one subtree, as LDIF: parents before children, every attribute kept. */
import { parseDn } from '../store/dn.js';
import type { Entry } from '../store/entry.js';
import { DirectoryError } from '../store/errors.js';
import { dnKey } from '../store/keys.js';
import { formatLdifRecords } from './writer.js';

/** Where the entries are read from: a DirectoryStore, or a PostgreSQL store's table (EntriesTable). */
export interface ExportSource {
  getByKey(key: string): Promise<Entry | undefined>;
  /** The entry at `key` and everything below it ('' is the whole tree), parents before children. */
  subtree(key: string): AsyncIterable<Entry>;
}

/**
 * LDIF text, a record at a time. Operational attributes (entryUUID, timestamps) are included,
 * as slapcat does, so importing the output reproduces the database; userPassword is base64.
 */
export async function* exportLdif(store: ExportSource, baseDn = ''): AsyncGenerator<string> {
  const base = dnKey(parseDn(baseDn));
  if (base !== '' && !(await store.getByKey(base))) {
    throw new DirectoryError('noSuchObject', `the base entry ${baseDn} does not exist`);
  }
  yield* formatLdifRecords(store.subtree(base));
}
