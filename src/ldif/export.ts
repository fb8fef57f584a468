/** The whole tree, or one subtree, as LDIF: parents before children, every attribute kept. */
import { parseDn } from '../store/dn.js';
import { DirectoryError } from '../store/errors.js';
import type { DirectoryStore } from '../store/store.js';
import { formatLdifEntry } from './writer.js';

/**
 * LDIF text, a record at a time. Operational attributes (entryUUID, timestamps) are included,
 * as slapcat does, so importing the output reproduces the database; userPassword is base64.
 * No `version: 1` line: slapadd refuses one (it is optional for ldapadd and our reader).
 */
export async function* exportLdif(store: DirectoryStore, baseDn = ''): AsyncGenerator<string> {
  const base = parseDn(baseDn);
  if (base.length > 0 && !(await store.get(base))) {
    throw new DirectoryError('noSuchObject', `the base entry ${baseDn} does not exist`);
  }
  let separator = '';
  for await (const entry of store.search(base, 'sub')) {
    yield `${separator}${formatLdifEntry(entry)}`;
    separator = '\n';
  }
}
