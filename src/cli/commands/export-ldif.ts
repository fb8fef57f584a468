/**
 * `leveldap export-ldif`: the database (or a subtree) as LDIF on stdout, like slapcat; with
 * --store postgres://..., the PostgreSQL store's entries, read straight from its table.
 */
import type { Argv, CommandModule } from 'yargs';
import { exportLdif, type ExportSource } from '../../ldif/index.js';
import { DirectoryStore } from '../../store/index.js';
import { DATA_UNLESS_STORE, withDataOption, type DataOptions } from '../options/data.js';
import { storeFromOptions, withStoreUrlOption, type StoreOptions } from '../options/store.js';
import { writeAll } from '../support/output.js';

interface ExportArgs extends DataOptions, Pick<StoreOptions, 'store'> {
  'base-dn'?: string;
}

async function openSource(args: ExportArgs): Promise<ExportSource & { close(): Promise<void> }> {
  const { url } = await storeFromOptions({ store: args.store }, undefined);
  if (url === undefined) return DirectoryStore.open(args.data, { createIfMissing: false });
  const { EntriesTable } = await import('../../store/postgres/index.js'); // loaded only for a PostgreSQL store
  return EntriesTable.open(url, 'read');
}

async function handler(args: ExportArgs): Promise<void> {
  const source = await openSource(args);
  try {
    await writeAll(exportLdif(source, args['base-dn'] ?? ''));
  } finally {
    await source.close();
  }
}

export const exportLdifCommand: CommandModule<object, ExportArgs> = {
  command: 'export-ldif',
  describe: 'write the database, or the subtree under --base-dn, as LDIF on stdout',
  builder: (yargs: Argv) => withStoreUrlOption(withDataOption(yargs, DATA_UNLESS_STORE), 'export this PostgreSQL store instead of --data')
    .option('base-dn', { type: 'string', requiresArg: true, describe: 'export only this entry and its subtree' }) as Argv<ExportArgs>,
  handler,
};
