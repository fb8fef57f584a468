/** The --data option shared by the commands that open the database. */
import type { Argv } from 'yargs';

const DEFAULT_DATA_DIR = 'data/db';
export const DEFAULT_ADMIN_DN = 'cn=Directory Manager';

export interface DataOptions {
  data: string;
}

/** What --data says beside --store on import-ldif and export-ldif. */
export const DATA_UNLESS_STORE = 'database directory (not used with --store)';

export function withDataOption<T>(yargs: Argv<T>, describe = 'database directory'): Argv<T & DataOptions> {
  return yargs.option('data', {
    type: 'string', default: DEFAULT_DATA_DIR, requiresArg: true, describe,
  }) as Argv<T & DataOptions>;
}
