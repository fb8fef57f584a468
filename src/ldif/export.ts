/** The whole tree, or one subtree, as LDIF: parents before children, every attribute kept. */
import { parseDn } from '../store/dn.js';
import { DirectoryError } from '../store/errors.js';
import type { DirectoryStore } from '../store/store.js';
import { formatLdifRecords } from './writer.js';

/**
 * LDIF text, a record at a time. Operational attributes (entryUUID, timestamps) are included,
 * as slapcat does, so importing the output reproduces the database; userPassword is base64.
 */
export async function* exportLdif(store: DirectoryStore, baseDn = ''): AsyncGenerator<string> {
  const base = parseDn(baseDn);
  if (base.length > 0 && !(await store.get(base))) {
    throw new DirectoryError('noSuchObject', `the base entry ${baseDn} does not exist`);
  }
  yield* formatLdifRecords(store.search(base, 'sub'));
}
