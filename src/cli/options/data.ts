/** The --data option shared by the commands that open the database. */
import type { Argv } from 'yargs';

const DEFAULT_DATA_DIR = 'data/db';
export const DEFAULT_ADMIN_DN = 'cn=Directory Manager';

export interface DataOptions {
  data: string;
}

export function withDataOption<T>(yargs: Argv<T>): Argv<T & DataOptions> {
  return yargs.option('data', {
    type: 'string', default: DEFAULT_DATA_DIR, requiresArg: true, describe: 'database directory',
  }) as Argv<T & DataOptions>;
}
