/** `leveldap export-ldif`: the database (or a subtree) as LDIF on stdout, like slapcat. */
import type { Argv, CommandModule } from 'yargs';
import { exportLdif } from '../../ldif/index.js';
import { DirectoryStore } from '../../store/index.js';
import { withDataOption, type DataOptions } from '../options/data.js';
import { writeAll } from '../support/output.js';

interface ExportArgs extends DataOptions {
  'base-dn'?: string;
}

async function handler(args: ExportArgs): Promise<void> {
  const store = await DirectoryStore.open(args.data, { createIfMissing: false });
  try {
    await writeAll(exportLdif(store, args['base-dn'] ?? ''));
  } finally {
    await store.close();
  }
}

export const exportLdifCommand: CommandModule<object, ExportArgs> = {
  command: 'export-ldif',
  describe: 'write the database, or the subtree under --base-dn, as LDIF on stdout',
  builder: (yargs: Argv) => withDataOption(yargs)
    .option('base-dn', { type: 'string', requiresArg: true, describe: 'export only this entry and its subtree' }) as Argv<ExportArgs>,
  handler,
};
